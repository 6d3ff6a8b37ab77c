// simd_word.cu - CUDA's SIMD-in-a-word intrinsics (__vadd4, __vcmpgtu2,
// __vsadu4, ...) over pairs of words: out[NF * i + f] is function f of
// (a[i], b[i]); the host checks each against a byte-array reference.
#define NF 82
__global__ void simdWord(unsigned *out, const unsigned *a, const unsigned *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], y = b[i], *o = out + NF * i;
    int k = 0;
#define TWO(F) o[k++] = F##2(x, y); o[k++] = F##4(x, y);
#define ONE(F) o[k++] = F##2(x); o[k++] = F##4(x);
    TWO(__vadd) TWO(__vsub) TWO(__vaddss) TWO(__vaddus) TWO(__vsubss) TWO(__vsubus)
    TWO(__vavgs) TWO(__vavgu) TWO(__vhaddu) TWO(__vabsdiffs) TWO(__vabsdiffu)
    TWO(__vmaxs) TWO(__vmaxu) TWO(__vmins) TWO(__vminu)
    TWO(__vcmpeq) TWO(__vcmpne) TWO(__vcmpges) TWO(__vcmpgeu) TWO(__vcmpgts) TWO(__vcmpgtu)
    TWO(__vcmples) TWO(__vcmpleu) TWO(__vcmplts) TWO(__vcmpltu)
    TWO(__vseteq) TWO(__vsetne) TWO(__vsetges) TWO(__vsetgeu) TWO(__vsetgts) TWO(__vsetgtu)
    TWO(__vsetles) TWO(__vsetleu) TWO(__vsetlts) TWO(__vsetltu)
    ONE(__vabs) ONE(__vabsss) ONE(__vneg) ONE(__vnegss)
    TWO(__vsads) TWO(__vsadu)
}
