/*
 * Kernel classes and Tensor Core detection against real kernel names.
 * Usage: test_kclass FILE.tsv — each line "class<TAB>tc<TAB>name" where class
 * is a gpudiag_kernel_class_name() and tc is 0/1, labelled by hand from the
 * libraries' documented naming (see tests/data/kernel_names.tsv).  With
 * --dump, prints the current classification of names read one per line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/kclass.h"

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--dump") == 0) {
        FILE *fp = fopen(argv[2], "r");
        char line[16384];
        while (fp && fgets(line, sizeof line, fp)) {
            size_t n = strcspn(line, "\r\n");
            line[n] = '\0';
            printf("%s\t%d\t%s\n", gpudiag_kernel_class_name(gd_kernel_class(line, n)),
                   gd_kernel_uses_tensor_cores(line, n), line);
        }
        return fp ? 0 : 1;
    }
    if (argc > 2) {
        fprintf(stderr, "usage: test_kclass [FILE.tsv] | --dump NAMES\n");
        return 2;
    }
    const char *path = argc == 2 ? argv[1] : GD_TEST_DATA "/kernel_names.tsv";
    FILE *fp = fopen(path, "r");
    if (!fp) {
        perror(path);
        return 1;
    }
    char line[16384];
    int lineno = 0, checked = 0, failed = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *t1 = strchr(line, '\t');
        char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t2) {
            fprintf(stderr, "%s:%d: expected class<TAB>tc<TAB>name\n", path, lineno);
            return 1;
        }
        *t1 = *t2 = '\0';
        const char *name = t2 + 1;
        size_t n = strlen(name);
        const char *got = gpudiag_kernel_class_name(gd_kernel_class(name, n));
        int tc = gd_kernel_uses_tensor_cores(name, n);
        if (strcmp(got, line) != 0 || tc != atoi(t1 + 1)) {
            fprintf(stderr, "%s:%d: %s: expected %s tc=%s, got %s tc=%d\n", path, lineno, name, line,
                    t1 + 1, got, tc);
            failed++;
        }
        checked++;
    }
    fclose(fp);
    printf("%d names checked, %d wrong\n", checked, failed);
    return failed || checked < 50 ? 1 : 0;
}
