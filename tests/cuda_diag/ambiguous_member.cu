// expect error: ambiguous_member.cu:19:16: error: member 'id' is found in more than one base class of 'Both' (ambiguous); qualify it (obj.B::id)
struct Left
{
    int id;
};

struct Right
{
    int id;
};

struct Both : Left, Right
{
};

__global__ void k(int *out)
{
    Both b;
    out[0] = b.id;
}
