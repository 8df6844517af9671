/* symheap public header: export and C++ linkage macros shared by every public header. */
#ifndef SYMHEAP_DEFS_H
#define SYMHEAP_DEFS_H

#if defined(SYMH_BUILDING_LIBRARY) && defined(__GNUC__)
#define SYMH_API __attribute__((visibility("default")))
#else
#define SYMH_API
#endif

#ifdef __cplusplus
#define SYMH_BEGIN_C_DECLS extern "C" {
#define SYMH_END_C_DECLS   }
#else
#define SYMH_BEGIN_C_DECLS
#define SYMH_END_C_DECLS
#endif

#endif /* SYMHEAP_DEFS_H */
