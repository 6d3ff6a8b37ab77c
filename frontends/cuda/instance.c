/*
 * instance.c - cvm_kernel_get_instance: from a template instance's name
 * ("reduce<256>") to the kernel that implements it in a module compiled
 * from CUDA: the instance itself when it was compiled with its arguments
 * folded in, else the template's comptime kernel ("reduce<blockSize>")
 * with the instance's integers as the values of its comptime parameters.
 * Uses the public API only: the names and parameters are the contract
 * (lower_tmpl.c makes them); fe.h for fe_int_targ, the one reading of an
 * integer argument that lower_tmpl.c shares.
 */
#include "../../vm/cubevm.h"
#include "fe.h"

#include <errno.h>
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

/*
 * An integer template argument as an instance name spells it: 256, 0x100,
 * 010, 256u, 256ull, -3, true, false. A value above INT64_MAX (an unsigned
 * one: 18446744073709551615, 0xffffffffffffffff) keeps its bits and sets
 * *above; one that fits neither way is not read (false), as is anything
 * but an integer.
 */
bool fe_int_targ(const char *a, size_t len, int64_t *out, bool *above)
{
    *above = false;
    if (len == 4 && !memcmp(a, "true", 4)) {
        *out = 1;
        return true;
    }
    if (len == 5 && !memcmp(a, "false", 5)) {
        *out = 0;
        return true;
    }
    char buf[40];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, a, len);
    buf[len] = 0;
    const char *digits = buf[0] == '-' ? buf + 1 : buf;
    if (*digits < '0' || *digits > '9') /* strtoull would take a space, a sign, "inf" */
        return false;
    char *end = NULL;
    errno = 0;
    const unsigned long long m = strtoull(digits, &end, 0);
    if (errno == ERANGE || (buf[0] == '-' && m > (unsigned long long)INT64_MAX + 1))
        return false;
    /* C's suffixes: u, l, ll (lL is not one) and u before or after them, either case */
    bool has_u = *end == 'u' || *end == 'U';
    end += has_u;
    const char *l = end;
    while (*end == 'l' || *end == 'L')
        end++;
    const size_t nl = (size_t)(end - l);
    if (!has_u && (*end == 'u' || *end == 'U'))
        has_u = true, end++;
    if (*end || nl > 2 || (nl == 2 && l[0] != l[1]))
        return false;
    /* a minus before an unsigned, hex or octal literal wraps in C++ by the
     * literal's type (-1u is 4294967295): not read rather than guessed */
    if (buf[0] == '-' && (has_u || (digits[0] == '0' && digits[1] != 0)))
        return false;
    *out = buf[0] == '-' ? (int64_t)(0 - m) : (int64_t)m;
    *above = buf[0] != '-' && m > (unsigned long long)INT64_MAX;
    return true;
}

bool fe_targ_fits(bool is_signed, unsigned bits, int64_t v, bool above)
{
    if (bits >= 64)
        return is_signed ? !above : above || v >= 0;
    const int64_t span = (int64_t)1 << bits;
    return !above && (is_signed ? v >= -span / 2 && v < span / 2 : v >= 0 && v < span);
}

/* fe_targ_fits for a comptime parameter of element type e (the bytecode's
 * element types are the API's) */
static bool arg_fits(cvm_elem e, int64_t v, bool above)
{
    return fe_targ_fits(cvm_bc_elem_is_signed(e), e == CVM_BOOL ? 1 : cvm_bc_elem_size(e) * 8, v, above);
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
        fe_kind ti, tk;
        if ((il[i] == kl[i] && !memcmp(ia[i], ka[i], il[i])) ||
            (fe_scalar_type_name(ia[i], il[i], &ti) && fe_scalar_type_name(ka[i], kl[i], &tk) && ti == tk))
            continue; /* the same type argument (uint32_t, unsigned, unsigned int) */
        at[i] = comptime_param(k, ka[i], kl[i]);
        bool above = false;
        cvm_param_info pi = {0};
        if (at[i] < 0 || !fe_int_targ(ia[i], il[i], &v[i], &above) ||
            cvm_kernel_param(k, (uint32_t)at[i], &pi) != CVM_OK || !arg_fits(pi.elem, v[i], above))
            return CVM_OK; /* not this kernel's instance (a value out of the type's range: none's) */
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
