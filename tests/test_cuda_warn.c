/*
 * test_cuda_warn.c - golden warnings of the CUDA frontend: every .cu file
 * in tests/cuda_warn compiles, and the warnings cvm_compile_cuda delivers
 * through cvm_compile_options.warning are exactly the ones its opening
 * comment lines state, in order:
 *
 *   // expect warning: NAME.cu:LINE:COL: warning: SUBSTRING   (one per warning)
 *   // expect no warnings
 *
 * A warning matches when its message starts with the file name's
 * "NAME.cu:LINE:COL: warning: " (the path before NAME is ignored), contains
 * the substring, and diag.line/col agree. Also: no warning callback means
 * no warnings and the same bytes.
 */
#include "../vm/cubevm.h"
#include "tap.h"

#include <dirent.h>
#include <stdlib.h>

#define MAXW 8

typedef struct got_warnings {
    cvm_diag w[MAXW];
    int n;
} got_warnings;

static void collect(void *user, const cvm_diag *w)
{
    got_warnings *g = user;
    if (g->n < MAXW)
        g->w[g->n] = *w;
    g->n++;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 16);
    *len = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[*len] = 0;
    return buf;
}

/* Does warning w match "NAME.cu:L:C: warning: SUB"? */
static int matches(const cvm_diag *w, const char *expect)
{
    unsigned line = 0, col = 0;
    char name[128];
    const char *colon = strchr(expect, ':');
    if (!colon || (size_t)(colon - expect) >= sizeof name)
        return 0;
    memcpy(name, expect, (size_t)(colon - expect));
    name[colon - expect] = 0;
    if (sscanf(colon, ":%u:%u:", &line, &col) != 2)
        return 0;
    const char *sub = strstr(expect, "warning: ");
    const char *at = strstr(w->message, name);
    return sub && at && w->line == line && w->col == col && strstr(w->message, sub) &&
           !strncmp(at + strlen(name), colon, (size_t)(sub - colon));
}

static void run_case(const char *dir, const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t len = 0;
    char *src = read_all(path, &len);
    if (!src) {
        ok(0, "%s: cannot read", file);
        return;
    }
    char expect[MAXW][256];
    int nexp = 0, none = 0;
    for (const char *p = src; !strncmp(p, "// expect ", 10); p = strchr(p, '\n') + 1) {
        if (!strncmp(p, "// expect no warnings", 21))
            none = 1;
        else if (!strncmp(p, "// expect warning: ", 19) && nexp < MAXW) {
            size_t n = strcspn(p + 19, "\n");
            snprintf(expect[nexp++], sizeof expect[0], "%.*s", (int)n, p + 19);
        }
        if (!strchr(p, '\n'))
            break;
    }
    got_warnings g;
    memset(&g, 0, sizeof g);
    cvm_compile_options o = {0};
    o.warning = collect;
    o.warning_user = &g;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    void *bytes = NULL, *plain = NULL;
    size_t size = 0, plain_size = 0;
    cvm_status st = cvm_compile_cuda(src, len, path, &o, &bytes, &size, &d);
    ok(st == CVM_OK && (nexp || none), "%s compiles (%s)%s", file, st ? d.message : "ok",
       nexp || none ? "" : "; it states no expectation");
    ok(g.n == nexp, "%s: %d warning(s), want %d%s%s", file, g.n, nexp, g.n ? ": " : "",
       g.n ? g.w[0].message : "");
    for (int i = 0; i < nexp && i < g.n && i < MAXW; i++)
        ok(matches(&g.w[i], expect[i]), "%s: warning %d is '%s' (got '%s')", file, i + 1, expect[i],
           g.w[i].message);
    cvm_compile_options q = {0};
    st = cvm_compile_cuda(src, len, path, &q, &plain, &plain_size, &d);
    ok(st == CVM_OK && plain_size == size && !memcmp(plain, bytes, size),
       "%s: without a warning callback the same module comes out", file);
    cvm_free_bytes(bytes);
    cvm_free_bytes(plain);
    free(src);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
    const char *dir = getenv("CUDA_WARN_DIR") ? getenv("CUDA_WARN_DIR") : "tests/cuda_warn";
    DIR *dp = opendir(dir);
    if (!dp) {
        ok(0, "cannot open %s (run from the repository root)", dir);
        return done_testing();
    }
    char *names[64];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) && n < 64) {
        size_t l = strlen(e->d_name);
        if (l > 3 && !strcmp(e->d_name + l - 3, ".cu"))
            names[n++] = strdup(e->d_name);
    }
    closedir(dp);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    ok(n >= 5, "%d warning cases in %s", n, dir);
    for (int i = 0; i < n; i++) {
        if (names[i])
            run_case(dir, names[i]);
        free(names[i]);
    }
    return done_testing();
}
