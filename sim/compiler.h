/*
 * compiler.h - the few hints ksim's hot paths give the compiler, each
 * falling back to plain C where GCC's and Clang's attributes are missing.
 *
 *   KS_INLINE     inline, and inlined even where the compiler would not
 *   KS_OUTLINE    never inlined: keeps a rare path's code off the hot one
 *   KS_COLD       never inlined, and laid out as unlikely to run
 *   ks_unlikely   a branch expected not to be taken
 */
#ifndef KS_COMPILER_H
#define KS_COMPILER_H

#if defined(__GNUC__) || defined(__clang__)
#define KS_INLINE inline __attribute__((always_inline))
#define KS_OUTLINE __attribute__((noinline))
#define KS_COLD __attribute__((noinline, cold))
#define ks_unlikely(x) __builtin_expect(!!(x), 0)
#else
#define KS_INLINE inline
#define KS_OUTLINE
#define KS_COLD
#define ks_unlikely(x) (x)
#endif

#endif
