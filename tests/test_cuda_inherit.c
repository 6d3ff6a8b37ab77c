/*
 * test_cuda_inherit.c - non-virtual struct inheritance in the CUDA
 * frontend (docs/cuda.md "Inheritance"): members and member functions
 * found through derived structs, hiding and qualified B::f(), derived to
 * base conversions of objects, pointers and references (a base that is not
 * the first one at its offset), slicing, overload ranking, constructors
 * with base initializers, CRTP, bases that depend on template parameters,
 * the Itanium C++ ABI layout (empty bases, tail padding), kernel struct
 * parameters, and the refusals. Each kernel was also compiled as plain C++
 * with g++ (the CUDA qualifiers defined away, k called with the same
 * arrays): the expected words are what that program printed.
 */
#include <stdlib.h>

#define NOUT 64

static const int IN[16] = {-1, 1, 200, -56, 30000, 65535, 5, -10, 7, 3, 100, 0x7fffffff, -7, 2, 40000, 9};

#include "cuda_words.h"

/* Members of two bases, a member hiding a base's, A::f() and this->A::x,
 * B & and B * of a D (B not the first base: its offset), a write through
 * a B * read back through the D, slicing into a by-value B, an exact
 * overload over a derived-to-base one, static_cast back down. */
static void test_members_conversions(void)
{
    static const char src[] =
        "struct A { int x = 1; __device__ int f() const { return 100 + x; } __device__ int g() const { return 5; } };\n"
        "struct B { int y; __device__ B(int v) : y(v * 2) {} __device__ int f() const { return 200 + y; } };\n"
        "struct D : A, B {\n"
        "    int x = 30;\n"
        "    __device__ D(int v) : B(v), z(x + y) {}\n"
        "    int z;\n"
        "    __device__ int f() const { return A::f() + B::f() + x + this->A::x; }\n"
        "    __device__ int h() const { return g() + y + A::x; }\n"
        "};\n"
        "__device__ int take(const B &b) { return b.y; }\n"
        "__device__ int takep(B *b) { return b->y; }\n"
        "__device__ int val(B b) { b.y += 1; return b.y; }\n"
        "__device__ int over(const A &) { return 1; }\n"
        "__device__ int over(const D &) { return 2; }\n"
        "__device__ int over2(const A &) { return 1; }\n"
        "__device__ int over2(int) { return 3; }\n"
        "__global__ void k(int *out, const int *in)\n"
        "{\n"
        "    D d(5);\n"
        "    out[0] = d.f();\n"
        "    out[1] = d.h();\n"
        "    out[2] = d.z;\n"
        "    out[3] = take(d);\n"
        "    out[4] = takep(&d);\n"
        "    B *pb = &d;\n"
        "    pb->y = 77;\n"
        "    out[5] = d.y;\n"
        "    out[6] = val(d);\n"
        "    out[7] = d.y;\n"
        "    out[8] = over(d);\n"
        "    out[9] = over2(d);\n"
        "    const A &ra = d;\n"
        "    out[10] = ra.f();\n"
        "    out[11] = d.A::f();\n"
        "    out[12] = d.B::f();\n"
        "    D *pd = static_cast<D *>(pb);\n"
        "    out[13] = pd->x;\n"
        "    D &rd = static_cast<D &>(*pb);\n"
        "    out[14] = rd.z;\n"
        "    out[15] = (int)((char *)pb - (char *)&d);\n"
        "    out[16] = sizeof(D);\n"
        "    B b2 = d;\n"
        "    out[17] = b2.y;\n"
        "    A a2(d);\n"
        "    out[18] = a2.x;\n"
        "    d.A::x = 9;\n"
        "    out[19] = d.A::x * 100 + d.x;\n"
        "}\n";
    static const int32_t want[] = {342, 16, 40, 10, 10, 77, 78, 77, 2, 1, 101, 101, 277, 30, 40, 4, 16, 77, 1, 930};
    words_are("members through two bases, hiding, B::f(), pointer and reference conversions, slicing, overloads",
              src, 1, 0, want, 20);
}

/* CRTP with static_cast of this and of *this, a base depending on the
 * template's parameters (this->sum(), Base<T, 4>::size, Der::value_type),
 * a base's static constant and member type in the derived body, an empty
 * base taking no space, a member in a non-POD base's tail padding, C++17
 * aggregate initialization of a struct with a base (braced and elided),
 * and the default constructor and member initializers of a base. */
static void test_templates_layout_init(void)
{
    static const char src[] =
        "template <class Derived> struct Shape {\n"
        "    __device__ int area() const { return static_cast<const Derived &>(*this).impl() * 2; }\n"
        "    __device__ int twice() { return static_cast<Derived *>(this)->impl() + 1; }\n"
        "};\n"
        "struct Sq : Shape<Sq> { int s; __device__ int impl() const { return s * s; } };\n"
        "template <class T, int N> struct Base {\n"
        "    T v[N];\n"
        "    static constexpr int size = N;\n"
        "    typedef T value_type;\n"
        "    __device__ T sum() const { T s = 0; for (int i = 0; i < N; i++) s += v[i]; return s; }\n"
        "};\n"
        "template <class T> struct Der : Base<T, 4> {\n"
        "    T extra;\n"
        "    __device__ T total() const { return this->sum() + extra + Base<T, 4>::size; }\n"
        "    __device__ int n() const { return Der::size + sizeof(typename Der::value_type); }\n"
        "};\n"
        "struct Fixed : Base<int, 3> {\n"
        "    value_type w = size;\n"
        "    __device__ int all() const { return sum() * 10 + w + Fixed::size; }\n"
        "};\n"
        "struct E {};\n"
        "struct Pol : E { int x; float y; };\n"
        "struct NP { int a; char b; __device__ NP() : a(1), b(2) {} };\n"
        "struct TP : NP { char c; };\n"
        "struct Agg { int a, b; };\n"
        "struct AggD : Agg { int c; };\n"
        "struct Ctor { int q = 4; __device__ Ctor() { q += 10; } };\n"
        "struct DefD : Ctor { int r = 6; };\n"
        "__global__ void k(int *out, const int *in)\n"
        "{\n"
        "    Sq q;\n"
        "    q.s = 3;\n"
        "    out[0] = q.area();\n"
        "    out[1] = q.twice();\n"
        "    Der<int> d;\n"
        "    for (int i = 0; i < 4; i++) d.v[i] = i + 1;\n"
        "    d.extra = 100;\n"
        "    out[2] = d.total();\n"
        "    out[3] = d.n();\n"
        "    Fixed f;\n"
        "    f.v[0] = 1; f.v[1] = 2; f.v[2] = 3;\n"
        "    out[4] = f.all();\n"
        "    out[5] = sizeof(Pol);\n"
        "    out[6] = sizeof(TP);\n"
        "    TP tp;\n"
        "    tp.c = 9;\n"
        "    out[7] = (int)((char *)&tp.c - (char *)&tp);\n"
        "    out[8] = tp.a * 100 + tp.b * 10 + tp.c;\n"
        "    AggD ag{{1, 2}, 3};\n"
        "    out[9] = ag.a * 100 + ag.b * 10 + ag.c;\n"
        "    AggD ag2 = {4, 5, 6};\n"
        "    out[10] = ag2.a * 100 + ag2.b * 10 + ag2.c;\n"
        "    DefD dd;\n"
        "    out[11] = dd.q * 100 + dd.r;\n"
        "    out[12] = sizeof(AggD);\n"
        "    out[13] = Der<int>::size;\n"
        "}\n";
    static const int32_t want[] = {18, 10, 114, 8, 66, 8, 8, 5, 129, 123, 456, 1406, 12, 4};
    words_are("CRTP, dependent bases, base statics and member types, empty bases, aggregates, base defaults", src, 1, 0, want, 14);
}

/* A base's operator+ and operator+= on derived objects, a base's member
 * function template, a base's static member function called unqualified
 * from the derived one, *this converted to a base inside a member
 * function, slicing by assignment. */
static void test_operators_statics(void)
{
    static const char src[] =
        "struct V { float x, y; __device__ V operator+(const V &o) const { return V{x + o.x, y + o.y}; } };\n"
        "struct NV : V { int tag; };\n"
        "struct Acc { int n = 0; template <class T> __device__ void add(T v) { n += (int)v; } __device__ Acc &operator+=(int v) { n += v; return *this; } };\n"
        "struct Cnt : Acc { int extra = 1; };\n"
        "struct S1 { static __device__ int id(int v) { return v + 1; } };\n"
        "struct S2 : S1 { static __device__ int run(int v) { return id(v) * 2; } };\n"
        "struct Wrap : NV { __device__ int sum() const { V w = *this + *this; return (int)(w.x + w.y) + tag; } };\n"
        "__device__ int byval(V v) { return (int)(v.x * 10 + v.y); }\n"
        "__global__ void k(int *out, const int *in)\n"
        "{\n"
        "    NV a; a.x = 1; a.y = 2; a.tag = 5;\n"
        "    NV b; b.x = 3; b.y = 4; b.tag = 6;\n"
        "    V c = a + b;\n"
        "    out[0] = (int)(c.x * 10 + c.y);\n"
        "    Cnt ct;\n"
        "    ct.add(3.5f);\n"
        "    ct += 4;\n"
        "    out[1] = ct.n * 10 + ct.extra;\n"
        "    out[2] = S2::run(3);\n"
        "    Wrap w; w.x = 1; w.y = 2; w.tag = 100;\n"
        "    out[3] = w.sum();\n"
        "    out[4] = byval(w);\n"
        "    V v2;\n"
        "    v2 = w;\n"
        "    out[5] = (int)v2.y;\n"
        "    out[6] = sizeof(Wrap);\n"
        "}\n";
    static const int32_t want[] = {46, 71, 8, 106, 12, 2, 12};
    words_are("base operators, member templates and static member functions through a derived struct", src, 1, 0, want, 7);
}

/* A base's copy constructor run by the derived struct's implicit copy and
 * by a user one's B(o), a base initialized with braces, module-scope
 * variables of a derived aggregate, a member function defined outside the
 * struct using base members, a base named in the list while the other
 * keeps its default initializers, the B * of a second base and a null
 * pointer converted down and up (it stays null). */
static void test_ctors_module(void)
{
    static const char src[] =
        "struct Cp { int v; int copies = 0; __device__ Cp(int x) : v(x) {} __device__ Cp(const Cp &o) : v(o.v), copies(o.copies + 1) {} };\n"
        "struct Dc : Cp { int w; __device__ Dc(int x) : Cp{x}, w(x * 2) {} };\n"
        "struct Dd : Cp { int w; __device__ Dd(int x) : Cp(x), w(x) {} __device__ Dd(const Dd &o) : Cp(o), w(o.w + 1) {} };\n"
        "struct G { int a; int b; };\n"
        "struct GD : G { int c; };\n"
        "__device__ GD gd = {{1, 2}, 3};\n"
        "__device__ GD gd2 = {4, 5, 6};\n"
        "struct Out : G { int z; __device__ int f() const; };\n"
        "__device__ int Out::f() const { return a + b * 10 + z * 100; }\n"
        "struct Base1 { int q = 3; };\n"
        "struct Base2 { int r = 4; };\n"
        "struct Multi : Base1, Base2 { int s = 5; __device__ Multi() : Base2{40} {} };\n"
        "__global__ void k(int *out, const int *in)\n"
        "{\n"
        "    Dc a(5);\n"
        "    Dc b = a;\n"
        "    out[0] = b.v * 100 + b.copies * 10 + b.w;\n"
        "    Dd c(7);\n"
        "    Dd d(c);\n"
        "    out[1] = d.v * 100 + d.copies * 10 + d.w;\n"
        "    out[2] = gd.a * 100 + gd.b * 10 + gd.c;\n"
        "    out[3] = gd2.a * 100 + gd2.b * 10 + gd2.c;\n"
        "    Out o; o.a = 1; o.b = 2; o.z = 3;\n"
        "    out[4] = o.f();\n"
        "    Multi m;\n"
        "    out[5] = m.q * 100 + m.r * 10 + m.s;\n"
        "    Base2 *p2 = &m;\n"
        "    p2->r = 9;\n"
        "    out[6] = m.r;\n"
        "    out[7] = (int)((char *)p2 - (char *)&m);\n"
        "    Base2 *np = nullptr;\n"
        "    Multi *back = static_cast<Multi *>(np);\n"
        "    out[8] = back == nullptr;\n"
        "    Multi *mp = &m;\n"
        "    Base2 *p3 = mp;\n"
        "    out[9] = p3 == p2;\n"
        "}\n";
    static const int32_t want[] = {520, 718, 123, 456, 321, 705, 9, 4, 1, 1};
    words_are("base copy constructors, braced base initializers, module-scope aggregates, null conversions", src, 1, 0, want, 10);
}

/* A base's conversion operator on a derived object (initialization, an
 * operand, an argument, a condition), the implicit assignment of a derived
 * struct running its base's operator=, the base's operator= through a
 * base reference, aggregates whose base has a converting constructor. */
static void test_conversions_assignment(void)
{
    static const char src[] =
        "struct Wt { float w; __device__ operator float() const { return w * 2.0f; } };\n"
        "struct Named : Wt { int id; };\n"
        "struct As { int v; int n = 0; __device__ As &operator=(const As &o) { v = o.v; n++; return *this; } };\n"
        "struct AD : As { int z; };\n"
        "__device__ float halve(float x) { return x / 2.0f; }\n"
        "struct Cv { int a; __device__ Cv(int x) : a(x) {} };\n"
        "struct CvD : Cv { int b; };\n"
        "__global__ void k(int *out, const int *in)\n"
        "{\n"
        "    Named n; n.w = 3.0f; n.id = 1;\n"
        "    float f = n;\n"
        "    out[0] = (int)f;\n"
        "    out[1] = (int)(n * 2.0f);\n"
        "    out[2] = (int)halve(n);\n"
        "    AD a1; a1.v = 1; a1.z = 2;\n"
        "    AD a2; a2.v = 5; a2.z = 6;\n"
        "    a1 = a2;\n"
        "    out[3] = a1.v * 100 + a1.n * 10 + a1.z;\n"
        "    As &r = a1;\n"
        "    r = a2;\n"
        "    out[4] = a1.v * 100 + a1.n * 10 + a1.z;\n"
        "    CvD cd{{7}, 8};\n"
        "    out[5] = cd.a * 10 + cd.b;\n"
        "    CvD ce{9, 1};\n"
        "    out[6] = ce.a * 10 + ce.b;\n"
        "    if (n) out[7] = 1;\n"
        "}\n";
    static const int32_t want[] = {6, 12, 3, 516, 526, 78, 91, 1};
    words_are("a base's conversion operator and operator=, aggregates with a constructed base", src, 1, 0, want, 8);
}

/* CRTP in a struct template (Shape<Sq<T>>), a dependent base named in the
 * constructor's list with braces and qualified in calls
 * (this->Holder<T>::get(), Holder<T>::val), a base three levels up behind
 * a padded first base (its offset), L0::who() and this->L2::who() through
 * an intermediate base, a constructor defined outside its struct naming
 * its base, an aligned base, a reference cast down two levels. */
static void test_deeper(void)
{
    static const char src[] =
        "template <class D> struct Shape { __device__ int area() const { return static_cast<const D *>(this)->side() * 3; } };\n"
        "template <class T> struct Sq : Shape<Sq<T>> { T s; __device__ int side() const { return (int)s; } };\n"
        "template <class T> struct Holder { T val; __device__ T get() const { return val; } };\n"
        "template <class T> struct Box : Holder<T> {\n"
        "    __device__ Box(T v) : Holder<T>{v} {}\n"
        "    __device__ T twice() const { return this->Holder<T>::get() * 2 + Holder<T>::val; }\n"
        "};\n"
        "struct L0 { int a = 1; __device__ int who() const { return 10; } };\n"
        "struct L1 { int pad[3]; };\n"
        "struct L2 : L1, L0 { int b = 2; };\n"
        "struct L3 : L2 { int c = 3; __device__ int who() const { return 30 + L0::who() + this->L2::who(); } };\n"
        "struct K { int a; __device__ K(int x); };\n"
        "__device__ K::K(int x) : a(x + 1) {}\n"
        "struct KD : K { int b; __device__ KD(int x); };\n"
        "__device__ KD::KD(int x) : K(x), b(x * 3) {}\n"
        "struct alignas(16) AB { int q; };\n"
        "struct ABD : AB { int r; };\n"
        "__global__ void k(int *out, const int *in)\n"
        "{\n"
        "    Sq<float> s; s.s = 4.0f;\n"
        "    out[0] = s.area();\n"
        "    Box<int> b(5);\n"
        "    out[1] = b.twice();\n"
        "    L3 l;\n"
        "    L0 *p0 = &l;\n"
        "    out[2] = (int)((char *)p0 - (char *)&l);\n"
        "    out[3] = p0->a + l.who() + l.L0::who();\n"
        "    out[4] = sizeof(L3);\n"
        "    KD kd(4);\n"
        "    out[5] = kd.a * 100 + kd.b;\n"
        "    out[6] = sizeof(ABD) * 100 + alignof(ABD);\n"
        "    L2 &r2 = l;\n"
        "    out[7] = r2.b + static_cast<L3 &>(r2).c * 10;\n"
        "}\n";
    static const int32_t want[] = {12, 15, 12, 61, 24, 512, 3216, 32};
    words_are("templates of CRTP and dependent bases, deeper hierarchies, outside constructors, aligned bases",
              src, 1, 0, want, 8);
}

/* Overloads taking a base: the nearer base wins (f(const B &) over
 * f(const A &) for a D : B : A, in either order, pointers too), an exact
 * match over a base, a base over a user conversion; member overloads too. */
static void test_overload_bases(void)
{
    static const char src[] =
        "struct A { int a = 1; };\n"
        "struct B : A { int b = 2; };\n"
        "struct D : B { int d = 3; };\n"
        "__device__ int f(const A &) { return 1; }\n"
        "__device__ int f(const B &) { return 2; }\n"
        "__device__ int g(const B &) { return 2; }\n"
        "__device__ int g(const A &) { return 1; }\n"
        "__device__ int h(A *) { return 1; }\n"
        "__device__ int h(B *) { return 2; }\n"
        "__device__ int m(const A &) { return 1; }\n"
        "__device__ int m(float) { return 3; }\n"
        "struct S { __device__ int f(const A &) const { return 10; } __device__ int f(const B &) const { return 20; } };\n"
        "__global__ void k(int *out, const int *in)\n"
        "{\n"
        "    D d;\n"
        "    A a;\n"
        "    out[0] = f(d);\n"
        "    out[1] = g(d);\n"
        "    out[2] = h(&d);\n"
        "    out[3] = f(a);\n"
        "    out[4] = m(d);\n"
        "    S s;\n"
        "    out[5] = s.f(d);\n"
        "}\n";
    static const int32_t want[] = {2, 2, 2, 1, 1, 20};
    words_are("overloads: the nearer base, exact over base, base over conversion", src, 1, 0, want, 6);
}

/* A base's member types and static constant named through the derived
 * struct outside it (Fixed::value_type, typename C::value_type and C::size
 * of a template argument). */
static void test_member_types_outside(void)
{
    static const char src[] =
        "template <class T, int N> struct Base { T v[N]; static constexpr int size = N; typedef T value_type; using index_type = int; };\n"
        "struct Fixed : Base<short, 3> { int w; };\n"
        "template <class C> __device__ int bytes() { return sizeof(typename C::value_type) * C::size; }\n"
        "__global__ void k(int *out, const int *in)\n"
        "{\n"
        "    Fixed::value_type a = 70000;\n"
        "    Fixed::index_type b = 70000;\n"
        "    out[0] = a;\n"
        "    out[1] = b;\n"
        "    out[2] = bytes<Fixed>();\n"
        "    out[3] = Fixed::size;\n"
        "    out[4] = sizeof(Fixed);\n"
        "}\n";
    static const int32_t want[] = {4464, 70000, 6, 3, 12};
    words_are("a base's member types and constants through the derived struct's name", src, 1, 0, want, 5);
}

/* sizeof, alignof and offsetof of structs with bases (empty bases, tail
 * padding of bases that are not POD for layout: a constructor, a default
 * member initializer, a private member), then members written through a
 * struct pointer laid over the output: the words g++ gives. */
static void test_layout_words(void)
{
    static const char src[] =
        "struct E {};\n"
        "struct E2 {};\n"
        "struct B { int a; char b; };\n"
        "struct Bc { int a; char b; __device__ Bc() {} };\n"
        "struct Bi { int a; char b = 0; };\n"
        "class Bpriv { int a; char b; public: __device__ void set(int x, char y) { a = x; b = y; } };\n"
        "struct TP : Bc { char c; };\n"
        "struct TI : Bi { char c; };\n"
        "struct TV : Bpriv { char c; };\n"
        "struct TB : B { char c; };\n"
        "struct P3 : E { E e; int x; };\n"
        "struct P2 : E, E2 { int x; };\n"
        "struct M : B, Bc { double d; };\n"
        "struct Cd { double d; };\n"
        "struct X : B, Cd { int z; };\n"
        "struct TT : TP { char e; };\n"
        "__global__ void k(int *out, const int *in)\n"
        "{\n"
        "    out[0] = sizeof(TP) * 100 + sizeof(TI) * 10 + sizeof(TV);\n"
        "    out[1] = sizeof(TB) * 100 + sizeof(P3) * 10 + sizeof(P2);\n"
        "    out[2] = sizeof(M) * 100 + sizeof(X) * 10 + alignof(X);\n"
        "    out[3] = __builtin_offsetof(TP, c) * 100 + __builtin_offsetof(TB, c) * 10 + __builtin_offsetof(P3, x);\n"
        "    out[4] = __builtin_offsetof(M, d) * 100 + __builtin_offsetof(X, z) * 10 + sizeof(TT);\n"
        "    M *m = reinterpret_cast<M *>(out + 6);\n"
        "    m->B::a = 0x11111111;\n"
        "    m->B::b = 0x22;\n"
        "    m->Bc::a = 0x33333333;\n"
        "    m->Bc::b = 0x44;\n"
        "    m->d = 2.0;\n"
        "    TT *t = reinterpret_cast<TT *>(out + 12);\n"
        "    t->a = 0x55555555;\n"
        "    t->b = 0x66;\n"
        "    t->c = 0x77;\n"
        "    t->e = 0x7f;\n"
        "    Bc *pb = reinterpret_cast<M *>(out + 6);\n"
        "    pb->b = 0x45;\n"
        "    out[5] = (int)((char *)pb - (char *)(out + 6));\n"
        "}\n";
    static const int32_t want[] = {888, 1284, 2648, 584, 1768, 8, 286331153, 34, 858993459, 69, 0, 1073741824,
                                   1431655765, 8353638, 0, 0};
    words_are("layout as g++: empty bases, tail padding, offsets of a second base, raw words", src, 1, 0, want, 16);
}

/* A kernel parameter of a struct with a base: flattened (the base's
 * members named as the struct's own) when it holds pointers, else one
 * struct parameter of g++'s layout. */
static void test_struct_params(void)
{
    static const char src[] =
        "struct In { const int *p; int scale; };\n"
        "struct Args : In { int *out; };\n"
        "struct PB { int a; };\n"
        "struct PD : PB { double b; };\n"
        "__global__ void k(Args a, PD q)\n"
        "{\n"
        "    int i = threadIdx.x;\n"
        "    const In &base = a;\n"
        "    a.out[i] = base.p[i] * a.scale + q.a + (int)q.b;\n"
        "}\n";
    static const struct { const char *name; cvm_param_kind kind; cvm_access access; } want[] = {
        {"a.p", CVM_PARAM_BUFFER, CVM_ACCESS_READ}, {"a.scale", CVM_PARAM_SCALAR, 0},
        {"a.out", CVM_PARAM_BUFFER, CVM_ACCESS_READWRITE}, {"q", CVM_PARAM_STRUCT, 0},
    };
    int good = 0;
    cvm_module *mod = compile_load(src, "struct params", 0);
    const cvm_kernel *k = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (mod && cvm_kernel_get(mod, "k", &k, &d) == CVM_OK) {
        cvm_kernel_info ki;
        cvm_kernel_info_get(k, &ki);
        good = ki.param_count == 4;
        for (uint32_t i = 0; good && i < 4; i++) {
            cvm_param_info pi;
            cvm_kernel_param(k, i, &pi);
            if (strcmp(pi.name, want[i].name) != 0 || pi.kind != want[i].kind ||
                (pi.kind == CVM_PARAM_BUFFER && pi.access != want[i].access) ||
                (pi.kind == CVM_PARAM_STRUCT && pi.size != 16)) {
                diag("param %u: %s kind %d access %d", i, pi.name, (int)pi.kind, (int)pi.access);
                good = 0;
            }
        }
        if (!good)
            diag("struct params: %u parameters", ki.param_count);
    }
    ok(good, "struct parameters with a base: flattened names with the base's members, struct bytes");
    good = 0;
    cvm_buffer *out = kern_buf("out", 8 * 4, NULL), *in = kern_buf("in", sizeof IN, IN);
    if (mod && k && out && in) {
        int scale = 3;
        struct { int32_t a; int32_t pad; double b; } q = {100, 0, 1000.75}; /* g++'s PD */
        cvm_arg args[] = {kern_arg_buf(in), kern_arg_bytes(&scale, 4), kern_arg_buf(out),
                          kern_arg_bytes(&q, sizeof q)};
        cvm_launch_config cfg = kern_cfg(1, 8);
        cvm_status st = cvm_launch(kern_stream(), k, &cfg, args, 4, &d);
        if (st == CVM_OK)
            st = cvm_stream_sync(kern_stream(), &d);
        int32_t got[8];
        if (st != CVM_OK)
            diag("struct params: launch: %s", d.message);
        else if (kern_read(out, got, sizeof got)) {
            good = 1;
            for (int i = 0; i < 8; i++)
                if (got[i] != IN[i] * 3 + 1100) {
                    diag("struct params: out[%d] = %d, want %d", i, got[i], IN[i] * 3 + 1100);
                    good = 0;
                }
        }
    }
    ok(good, "struct parameters with a base: reassembled in the kernel");
    if (out)
        cvm_buffer_free(out);
    if (in)
        cvm_buffer_free(in);
    if (mod)
        cvm_module_free(mod);
}

static void test_refusals(void)
{
    rejects("a virtual base",
            "struct B { int x; };\n"
            "struct D : public virtual B { int y; };\n"
            "__global__ void k(int *o) { D d; d.y = 1; o[0] = d.y; }\n",
            "bad.cu:2:19: error: virtual base classes are not supported in kernels");
    rejects("a virtual function in a derived struct",
            "struct B { int x; };\n"
            "struct D : B { virtual int f() { return x; } };\n"
            "__global__ void k(int *o) { D d; o[0] = d.f(); }\n",
            "virtual functions are not supported in kernels");
    rejects("a union with a base",
            "struct B { int x; };\n"
            "union U : B { int y; };\n"
            "__global__ void k(int *o) { U u; o[0] = u.y; }\n",
            "bad.cu:2:9: error: a union cannot have a base class");
    rejects("a union as a base",
            "union U { int a; float b; };\n"
            "struct D : U { int y; };\n"
            "__global__ void k(int *o) { D d; o[0] = d.y; }\n",
            "bad.cu:2:12: error: 'U' is a union: a union cannot be a base class");
    rejects("a base that is not a struct",
            "struct D : int { int y; };\n"
            "__global__ void k(int *o) { D d; o[0] = d.y; }\n",
            "bad.cu:1:12: error: 'int' is not a struct or class: it cannot be a base class");
    rejects("an incomplete base",
            "struct B;\n"
            "struct D : B { int y; };\n"
            "__global__ void k(int *o) { D d; o[0] = d.y; }\n",
            "bad.cu:2:12: error: base class 'B' is incomplete");
    rejects("a direct base twice",
            "struct B { int x; };\n"
            "struct D : B, public B { int y; };\n"
            "__global__ void k(int *o) { D d; o[0] = d.y; }\n",
            "'B' is a direct base class of 'D' twice");
    rejects("a member found in two bases",
            "struct A { int x; };\n"
            "struct B { int x; };\n"
            "struct D : A, B { int y; };\n"
            "__global__ void k(int *o) { D d; d.A::x = 1; o[0] = d.x; }\n",
            "bad.cu:4:55: error: member 'x' is found in more than one base class of 'D'");
    rejects("a member found in two bases, unqualified in a member function",
            "struct A { int x; };\n"
            "struct B { int x; };\n"
            "struct D : A, B { __device__ int get() { return x; } };\n"
            "__global__ void k(int *o) { D d; o[0] = d.get(); }\n",
            "bad.cu:3:49: error: member 'x' is found in more than one base class (ambiguous)");
    rejects("a member function found in two bases",
            "struct A { __device__ int f() { return 1; } };\n"
            "struct B { __device__ int f() { return 2; } };\n"
            "struct D : A, B {};\n"
            "__global__ void k(int *o) { D d; o[0] = d.f(); }\n",
            "member function 'f' is found in more than one base class of 'D'");
    rejects("a base reached twice",
            "struct A { int x; };\n"
            "struct B1 : A {};\n"
            "struct B2 : A {};\n"
            "struct D : B1, B2 {};\n"
            "__global__ void k(int *o) { D d; A *p = &d; o[0] = p->x; }\n",
            "'A' is an ambiguous base of 'D'");
    rejects("a base pointer to a derived one without a cast",
            "struct B { int x; };\n"
            "struct D : B { int y; };\n"
            "__global__ void k(int *o) { D d; B *b = &d; D *p = b; o[0] = p->y; }\n",
            "cannot convert 'B *' to 'D *' without a cast");
    rejects("a qualifier that is not a base",
            "struct B { int x; };\n"
            "struct X { int x; };\n"
            "struct D : B { int y; };\n"
            "__global__ void k(int *o) { D d; o[0] = d.X::x; }\n",
            "'X' is not a base class of 'D'");
    rejects("a flattened parameter whose base member is hidden",
            "struct In { int *p; };\n"
            "struct Args : In { int *p; };\n"
            "__global__ void k(Args a) { a.p[0] = 1; }\n",
            "the member 'p' of a base class is hidden by another 'p'");
}

/* Review: a B * and a D * compare as B * (B not the first base: the raw
 * addresses differ); `B2() = default` is not user-provided, so D2 does not
 * reuse B2's tail padding (g++: 1 1 0 1 1 12 8). */
static void test_review(void)
{
    static const char src[] =
        "#include <cstddef>\n"
        "struct A { int a; }; struct B { int b; }; struct D : A, B { int d; };\n"
        "struct B2 { int a; char b; B2() = default; };\n"
        "struct D2 : B2 { char c; };\n"
        "__global__ void k(int *out, const int *in) {\n"
        "  D d; B *pb = &d; D *pd = &d;\n"
        "  out[0] = pb == pd; out[1] = pd == pb; out[2] = pb != pd; out[3] = pb == &d;\n"
        "  const B *cpb = pb; out[4] = cpb == pd;\n"
        "  out[5] = sizeof(D2); out[6] = offsetof(D2, c); }\n";
    static const int32_t want[] = {1, 1, 0, 1, 1, 12, 8};
    words_are("pointer comparisons across a base's offset; a defaulted constructor keeps the POD layout", src, 1, 0,
              want, 7);
}

/* Refused before: `?:` of a D and a B (objects or pointers: a B, the
 * D's B taken at its offset), and deduction through a base (Base<T> from
 * a D, a CRTP helper's Shape<D>). g++ -std=c++17 on the same source with
 * in[0] = -1, in[1] = 1: 3 7 3 7 3 7, 7 3 7 3 7 3, 41 18. */
static void test_cond_deduce(void)
{
    static const char src[] =
        "struct B { int b; __device__ int get() const { return b; } };\n"
        "struct X { int pad[3]; };\n"
        "struct D : X, B { int d; };\n"
        "template <class T> struct Base { T v; };\n"
        "struct DI : Base<int> { int extra; };\n"
        "template <class T> __device__ T getv(const Base<T> &b) { return b.v; }\n"
        "template <class Derived> struct Shape {\n"
        "    __device__ float area() const { return static_cast<const Derived *>(this)->area_impl(); }\n"
        "};\n"
        "struct Sq : Shape<Sq> { float s; __device__ float area_impl() const { return s * s; } };\n"
        "template <class Dd> __device__ float twice_area(const Shape<Dd> &sh) { return 2.0f * sh.area(); }\n"
        "__global__ void k(int *out, const int *in)\n"
        "{\n"
        "    D d; d.b = 7; d.d = 9; d.pad[0] = 1;\n"
        "    B b; b.b = 3;\n"
        "    for (int i = 0; i < 2; i++) {\n"
        "        bool c = in[i] > 0;\n"
        "        out[6 * i + 0] = (c ? d : b).b;\n"
        "        out[6 * i + 1] = (!c ? d : b).get();\n"
        "        B *pb = &b;\n"
        "        D *pd = &d;\n"
        "        B *q = c ? pd : pb;\n"
        "        out[6 * i + 2] = q->b;\n"
        "        q = !c ? pd : pb;\n"
        "        out[6 * i + 3] = q->b;\n"
        "        const B &r = !c ? b : d;\n"
        "        out[6 * i + 4] = r.b;\n"
        "        B copy = c ? b : d;\n"
        "        out[6 * i + 5] = copy.b;\n"
        "    }\n"
        "    DI di; di.v = 41; di.extra = 1;\n"
        "    out[12] = getv(di);\n"
        "    Sq sq; sq.s = 3.0f;\n"
        "    out[13] = (int)twice_area(sq);\n"
        "}\n";
    static const int32_t want[] = {3, 7, 3, 7, 3, 7, 7, 3, 7, 3, 7, 3, 41, 18};
    words_are("?: of a D and a B; template arguments deduced through bases", src, 1, 0, want, 14);
}

int main(void)
{
    if (!kern_open())
        return 1;
    test_members_conversions();
    test_templates_layout_init();
    test_operators_statics();
    test_ctors_module();
    test_conversions_assignment();
    test_deeper();
    test_overload_bases();
    test_member_types_outside();
    test_layout_words();
    test_struct_params();
    test_refusals();
    test_review();
    test_cond_deduce();
    kern_close();
    return done_testing();
}
