/*
 * test.h — a tiny assertion kit: typed ASSERT_* macros that print the
 * expression, both values, file and line, then abort.  Exit 77 = skipped.
 */
#ifndef GD_TEST_H
#define GD_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_SKIP 77

static int gd_test_count;

#define ASSERT_TRUE(c)                                                                                   \
    do {                                                                                                 \
        gd_test_count++;                                                                                 \
        if (!(c)) {                                                                                      \
            fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #c);                  \
            abort();                                                                                     \
        }                                                                                                \
    } while (0)

#define ASSERT_EQ_INT(a, b)                                                                              \
    do {                                                                                                 \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                            \
        gd_test_count++;                                                                                 \
        if (va_ != vb_) {                                                                                \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, va_, vb_); \
            abort();                                                                                     \
        }                                                                                                \
    } while (0)

#define ASSERT_NEAR(a, b, tol)                                                                           \
    do {                                                                                                 \
        double va_ = (double)(a), vb_ = (double)(b);                                                     \
        gd_test_count++;                                                                                 \
        if (!(fabs(va_ - vb_) <= (tol))) {                                                               \
            fprintf(stderr, "%s:%d: %s ~= %s failed: %.9g != %.9g (tol %g)\n", __FILE__, __LINE__, #a, #b, \
                    va_, vb_, (double)(tol));                                                            \
            abort();                                                                                     \
        }                                                                                                \
    } while (0)

#define ASSERT_NAN(a)                                                                                    \
    do {                                                                                                 \
        double va_ = (double)(a);                                                                        \
        gd_test_count++;                                                                                 \
        if (!isnan(va_)) {                                                                               \
            fprintf(stderr, "%s:%d: %s is %.9g, expected NaN (unknown)\n", __FILE__, __LINE__, #a, va_); \
            abort();                                                                                     \
        }                                                                                                \
    } while (0)

#define ASSERT_STR_EQ(a, b)                                                                              \
    do {                                                                                                 \
        const char *sa_ = (a), *sb_ = (b);                                                               \
        gd_test_count++;                                                                                 \
        if (!sa_ || !sb_ || strcmp(sa_, sb_) != 0) {                                                     \
            fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__, #a, #b,      \
                    sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)");                                         \
            abort();                                                                                     \
        }                                                                                                \
    } while (0)

#define TEST_DONE(name)                                                                                  \
    do {                                                                                                 \
        printf("%s: %d checks passed\n", name, gd_test_count);                                          \
        return 0;                                                                                        \
    } while (0)

#endif
