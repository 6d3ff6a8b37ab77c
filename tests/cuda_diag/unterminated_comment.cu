// expect error: unterminated_comment.cu:5:5: error: unterminated comment
__global__ void k(float *out)
{
    out[threadIdx.x] = 0.0f;
    /* the end of this comment is missing
}
