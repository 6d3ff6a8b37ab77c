/*
 * isa.c - picks the compiled variant of the interpreter's hot code
 * (isa.h): the highest x86-64 level the CPU runs, or the one CUBEVM_ISA
 * forces, chosen once per process under pthread_once, and the
 * cvm_vm_run_plane that interp.c calls, forwarding to that variant.
 *
 * Levels follow the x86-64 psABI: v3 is AVX2, BMI1/2, FMA, F16C, LZCNT and
 * MOVBE over v2; v4 adds AVX-512 F, BW, CD, DQ and VL. The compiler's
 * __builtin_cpu_supports also checks that the OS saves the wide registers.
 */
#include "isa.h"
#include "interp.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(CVM_ISA_VARIANTS) && (defined(__x86_64__) || defined(_M_X64))
#define HAVE_VARIANTS 1
#include <cpuid.h>
#else
#define HAVE_VARIANTS 0
#endif

static const char *const level_names[CVM_VM_ISA_COUNT] = {"x86-64", "x86-64-v3", "x86-64-v4"};

const char *cvm_vm_isa_name(unsigned level)
{
    if (!HAVE_VARIANTS)
        return "native";
    return level < CVM_VM_ISA_COUNT ? level_names[level] : "?";
}

#if HAVE_VARIANTS
/* F16C, MOVBE and LZCNT: not every compiler's __builtin_cpu_supports knows them. */
static bool cpuid_v3_extras(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return false;
    bool f16c = c >> 29 & 1, movbe = c >> 22 & 1;
    if (!__get_cpuid(0x80000001u, &a, &b, &c, &d))
        return false;
    bool lzcnt = c >> 5 & 1;
    return f16c && movbe && lzcnt;
}

unsigned cvm_vm_isa_supported(void)
{
    __builtin_cpu_init();
    unsigned mask = 1u << CVM_VM_ISA_X86_64;
    bool v3 = __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt") &&
              __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2") &&
              __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
              __builtin_cpu_supports("fma") && cpuid_v3_extras();
    bool v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
              __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
              __builtin_cpu_supports("avx512vl");
    if (v3)
        mask |= 1u << CVM_VM_ISA_V3;
    if (v4)
        mask |= 1u << CVM_VM_ISA_V4;
    return mask;
}
#else
unsigned cvm_vm_isa_supported(void)
{
    return 1u; /* the build's own flags */
}
#endif

cvm_status cvm_vm_isa_choose(const char *forced, unsigned mask, unsigned *out_level,
                             cvm_diag *diag)
{
    unsigned n = HAVE_VARIANTS ? CVM_VM_ISA_COUNT : 1;
    if (!forced || !*forced) {
        for (unsigned l = n; l-- > 0;) {
            if (mask >> l & 1) {
                *out_level = l;
                return CVM_OK;
            }
        }
        return cvm_diag_set(diag, CVM_UNSUPPORTED, "no interpreter variant runs on this CPU");
    }
    for (unsigned l = 0; l < n; l++) {
        if (strcmp(forced, cvm_vm_isa_name(l)) != 0)
            continue;
        if (!(mask >> l & 1))
            return cvm_diag_set(diag, CVM_UNSUPPORTED,
                                "CUBEVM_ISA=%s: this CPU does not support %s", forced, forced);
        *out_level = l;
        return CVM_OK;
    }
    if (!HAVE_VARIANTS)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "CUBEVM_ISA=%s: this build has one interpreter variant, 'native'",
                            forced);
    return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                        "CUBEVM_ISA=%s: unknown level (x86-64, x86-64-v3 or x86-64-v4)", forced);
}

/* The process-wide choice; written once under `once`, read-only afterwards. */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned chosen;
static cvm_diag choice_diag;

static void choose_once(void)
{
    cvm_vm_isa_choose(getenv("CUBEVM_ISA"), cvm_vm_isa_supported(), &chosen, &choice_diag);
}

cvm_status cvm_vm_isa_current(unsigned *out_level, cvm_diag *diag)
{
    pthread_once(&once, choose_once);
    if (choice_diag.status != CVM_OK) {
        if (diag)
            *diag = choice_diag;
        return choice_diag.status;
    }
    *out_level = chosen;
    return CVM_OK;
}

static pthread_once_t lockstep_once = PTHREAD_ONCE_INIT;
static bool lockstep_allowed;

static void read_lockstep(void)
{
    const char *v = getenv("CUBEVM_LOCKSTEP");
    lockstep_allowed = !(v && strcmp(v, "0") == 0);
}

bool cvm_vm_lockstep_allowed(void)
{
    pthread_once(&lockstep_once, read_lockstep);
    return lockstep_allowed;
}

#if HAVE_VARIANTS
int cvm_vm_run_plane_x86_64(cvm_vm_exec *x, cvm_vm_plane *p);
int cvm_vm_run_plane_v3(cvm_vm_exec *x, cvm_vm_plane *p);
int cvm_vm_run_plane_v4(cvm_vm_exec *x, cvm_vm_plane *p);

static int (*const run_plane[CVM_VM_ISA_COUNT])(cvm_vm_exec *, cvm_vm_plane *) = {
    cvm_vm_run_plane_x86_64, cvm_vm_run_plane_v3, cvm_vm_run_plane_v4};

/* The level to run plane p at; false (p's fault recorded) when the
 * choice failed. */
static bool run_level(cvm_vm_exec *x, cvm_vm_plane *p, unsigned *level)
{
    cvm_diag d;
    if (cvm_vm_isa_current(level, &d) == CVM_OK)
        return true;
    cvm_vm_fault(x, p, 0, d.status, "%s", d.message);
    return false;
}

/* Called per plane slice, not per instruction: the indirect call is cheap. */
int cvm_vm_run_plane(cvm_vm_exec *x, cvm_vm_plane *p)
{
    unsigned level = 0;
    if (!run_level(x, p, &level))
        return CVM_VM_R_FAULT;
    return run_plane[level](x, p);
}

void cvm_vm_run_lockstep_x86_64(cvm_vm_exec *x);
void cvm_vm_run_lockstep_v3(cvm_vm_exec *x);
void cvm_vm_run_lockstep_v4(cvm_vm_exec *x);

static void (*const run_lockstep[CVM_VM_ISA_COUNT])(cvm_vm_exec *) = {
    cvm_vm_run_lockstep_x86_64, cvm_vm_run_lockstep_v3, cvm_vm_run_lockstep_v4};

/* Called per lockstep slice. */
void cvm_vm_run_lockstep(cvm_vm_exec *x)
{
    unsigned level = 0;
    if (!run_level(x, &x->planes[0], &level)) {
        x->planes[0].state = CVM_VM_FAULTED;
        return;
    }
    run_lockstep[level](x);
}
#endif
