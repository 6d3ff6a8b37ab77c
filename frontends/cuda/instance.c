/*
 * instance.c - cvm_kernel_get_instance: from a template instance's name
 * ("reduce<256>") to the kernel that implements it in a module compiled
 * from CUDA: the instance itself when it was compiled with its arguments
 * folded in, else the template's comptime kernel ("reduce<blockSize>")
 * with the instance's integers as the values of its comptime parameters.
 * Uses the public API only: the names and parameters are the contract
 * (lower_tmpl.c makes them).
 */
#include "../../bytecode/bc.h"
#include "../../vm/cubevm.h"

#include <stdlib.h>
#include <string.h>

#define MAX_TARGS 8

/* Splits "name<a, b>" into the name's length and the trimmed arguments; false if malformed. */
static bool split(const char *s, size_t *name_len, const char **args, size_t *lens, int *n)
{
    const char *lt = strchr(s, '<');
    size_t len = strlen(s);
    if (!lt || lt == s || len < 3 || s[len - 1] != '>')
        return false;
    *name_len = (size_t)(lt - s);
    *n = 0;
    const char *p = lt + 1, *end = s + len - 1;
    while (p < end) {
        if (*n == MAX_TARGS)
            return false;
        while (p < end && *p == ' ')
            p++;
        const char *a = p;
        int depth = 0;
        while (p < end && (depth > 0 || *p != ',')) {
            depth += *p == '<' ? 1 : *p == '>' ? -1 : 0;
            p++;
        }
        const char *e = p;
        while (e > a && e[-1] == ' ')
            e--;
        args[*n] = a;
        lens[(*n)++] = (size_t)(e - a);
        if (p < end)
            p++; /* the comma */
    }
    return true;
}

/* An integer template argument: 256, 0x100, 256u, -3, true, false. */
static bool int_arg(const char *a, size_t len, int64_t *out)
{
    if (len == 4 && !memcmp(a, "true", 4)) {
        *out = 1;
        return true;
    }
    if (len == 5 && !memcmp(a, "false", 5)) {
        *out = 0;
        return true;
    }
    char buf[32];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, a, len);
    buf[len] = 0;
    char *end = NULL;
    long long v = strtoll(buf, &end, 0);
    while (end && (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L'))
        end++;
    if (!end || end == buf || *end)
        return false;
    *out = v;
    return true;
}

/* Index of the comptime parameter named (p, len) of k, or -1. */
static int comptime_param(const cvm_kernel *k, const char *p, size_t len)
{
    cvm_kernel_info ki;
    cvm_kernel_info_get(k, &ki);
    for (uint32_t i = 0; i < ki.param_count; i++) {
        cvm_param_info pi;
        if (cvm_kernel_param(k, i, &pi) == CVM_OK && pi.kind == CVM_PARAM_COMPTIME &&
            strlen(pi.name) == len && !memcmp(pi.name, p, len))
            return (int)i;
    }
    return -1;
}

/* Does kernel k (named kname) implement the instance? Fills values for its comptime parameters. */
static cvm_status match(const cvm_kernel *k, const char *kname, const char *inst, int64_t *values,
                        uint32_t nvalues, bool *ok)
{
    const char *ia[MAX_TARGS], *ka[MAX_TARGS];
    size_t il[MAX_TARGS], kl[MAX_TARGS], in_len, kn_len;
    int ni, nk;
    *ok = false;
    if (!split(inst, &in_len, ia, il, &ni) || !split(kname, &kn_len, ka, kl, &nk) || ni != nk ||
        in_len != kn_len || memcmp(inst, kname, in_len) != 0)
        return CVM_OK;
    int64_t v[MAX_TARGS] = {0};
    int at[MAX_TARGS];
    for (int i = 0; i < ni; i++) {
        at[i] = -1;
        if (il[i] == kl[i] && !memcmp(ia[i], ka[i], il[i]))
            continue; /* the same type argument */
        at[i] = comptime_param(k, ka[i], kl[i]);
        if (at[i] < 0 || !int_arg(ia[i], il[i], &v[i]))
            return CVM_OK;
        if ((uint32_t)at[i] >= nvalues)
            return CVM_INVALID_ARGUMENT;
    }
    for (int i = 0; i < ni; i++)
        if (at[i] >= 0)
            values[at[i]] = v[i];
    *ok = true;
    return CVM_OK;
}

cvm_status cvm_kernel_get_instance(const cvm_module *mod, const char *instance,
                                   const cvm_kernel **out_kernel, int64_t *values, uint32_t nvalues,
                                   cvm_diag *diag)
{
    if (!mod || !instance || !out_kernel || (nvalues && !values))
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_kernel_get_instance: NULL argument");
    *out_kernel = NULL;
    if (cvm_kernel_get(mod, instance, out_kernel, NULL) == CVM_OK)
        return CVM_OK;
    uint32_t n = cvm_module_kernel_count(mod);
    for (uint32_t i = 0; i < n; i++) {
        const char *name = cvm_module_kernel_name(mod, i);
        const cvm_kernel *k = NULL;
        bool ok = false;
        if (!name || cvm_kernel_get(mod, name, &k, NULL) != CVM_OK)
            continue;
        cvm_status st = match(k, name, instance, values, nvalues, &ok);
        if (st)
            return cvm_diag_set(diag, st, "cvm_kernel_get_instance: '%s' has more parameters than "
                                "the %u values given", name, nvalues);
        if (ok) {
            *out_kernel = k;
            return CVM_OK;
        }
    }
    return cvm_diag_set(diag, CVM_NOT_FOUND, "no kernel implements the instance '%s'", instance);
}
