// A plain model of team membership for the team and collective tests (test_mpi_team.cc,
// test_mpi_collectives.cc): which world PEs a split gives, in which order, computed here from the
// arguments alone, so that the library's answers (symh_team_my_pe, _n_pes, _translate_pe, the
// data a collective moves) are checked against it and not against themselves.
#ifndef SYMH_TEAM_TEST_MODEL_HPP
#define SYMH_TEAM_TEST_MODEL_HPP

#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include <symheap.h>

#include "mpi_test_util.hpp"

namespace symh_test
{

// One team as this PE sees it: its handle (SYMH_TEAM_INVALID where this PE is no member) and the
// model's members, world PE numbers in team order (the same list on every PE of the parent).
struct TeamModel {
    std::string name;
    symh_team_t team = SYMH_TEAM_INVALID;
    std::vector<int> members;

    // The team number of world PE `pe`, or -1.
    int index_of(int pe) const
    {
        auto at = std::find(members.begin(), members.end(), pe);
        return at == members.end() ? -1 : (int)(at - members.begin());
    }
    bool has_me() const
    {
        return index_of(me()) >= 0;
    }
    int size() const
    {
        return (int)members.size();
    }
};

// The parent's PEs start, start + stride, ..., start + (size - 1) * stride (team.h).
inline std::vector<int> strided_members(const std::vector<int> &parent, int start, int stride,
                                        int size)
{
    std::vector<int> out;
    for (int i = 0; i < size; ++i)
        out.push_back(parent.at((size_t)(start + i * stride)));
    return out;
}

// The grid of symh_team_split_2d: min(xrange, size) columns over the parent's PEs in order; the
// row (x team) and the column (y team) of world PE `pe`. Both empty when `pe` is not in `parent`.
inline void grid_members(const std::vector<int> &parent, int xrange, int pe, std::vector<int> &x,
                         std::vector<int> &y)
{
    x.clear();
    y.clear();
    int n = (int)parent.size(), cols = std::min(xrange, n);
    auto at = std::find(parent.begin(), parent.end(), pe);
    if (at == parent.end())
        return;
    int i = (int)(at - parent.begin()), row = i / cols, col = i % cols;
    for (int j = row * cols; j < std::min((row + 1) * cols, n); ++j)
        x.push_back(parent[(size_t)j]);
    for (int j = col; j < n; j += cols)
        y.push_back(parent[(size_t)j]);
}

inline std::vector<int> world_members()
{
    std::vector<int> out;
    for (int pe = 0; pe < npes(); ++pe)
        out.push_back(pe);
    return out;
}

// The shared team's PEs: those whose copy of a heap object this PE can load from (team.h: the
// PEs of this node that the IPC transport maps), in world order.
inline std::vector<int> shared_members(const void *heap_object)
{
    std::vector<int> out;
    for (int pe = 0; pe < npes(); ++pe)
        if (symh_ptr(heap_object, pe) != nullptr)
            out.push_back(pe);
    return out;
}

// Log lines of all PEs together (collective over the world).
inline long job_lines(const std::string &log)
{
    long mine = (long)log_lines(log), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

// The largest value of `value` over all PEs (collective over the world).
inline long max_over_pes(long value)
{
    long all = 0;
    MPI_Allreduce(&value, &all, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

} // namespace symh_test

#endif
