# bench/bench_env.sh: sourced by the bench/run_*.sh scripts. `symh_bench_setup NAME BUILD_DIR`
# sets $build and $bin (BUILD_DIR/bench/NAME, which must have been built), lets Open MPI run as
# root, and prints the machine line every result table starts with.
symh_bench_setup() {
    build=$2
    bin=$build/bench/$1
    [ -x "$bin" ] || { echo "no $bin: build first (cmake --build $build)" >&2; exit 1; }
    if [ "$(id -u)" -eq 0 ]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
    echo "machine: $(nproc) cores, $(uname -sr), $(mpirun --version 2>/dev/null | head -1)"
}
