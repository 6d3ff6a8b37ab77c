/*
 * npy.c - reading and writing numpy .npy files, the CLI's buffer format.
 *
 * A .npy file is a magic string, a version, a header length and a Python
 * dict literal ({'descr': '<f4', 'fortran_order': False, 'shape': (3,)})
 * followed by the raw data. The dict is parsed with a small literal parser
 * rather than by pattern matching, so key order, quoting style, spacing and
 * trailing commas do not matter and anything else is rejected precisely.
 */
#include "npy.h"

#include "../bytecode/bc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static const char magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

static const struct {
    const char *code; /* dtype without the byte-order character */
    cvm_elem elem;
} dtypes[] = {
    {"b1", CVM_BOOL}, {"i1", CVM_I8},  {"u1", CVM_U8},  {"i2", CVM_I16}, {"u2", CVM_U16},
    {"i4", CVM_I32},  {"u4", CVM_U32}, {"i8", CVM_I64}, {"u8", CVM_U64}, {"f2", CVM_F16},
    {"f4", CVM_F32},  {"f8", CVM_F64},
};

const char *cvm_vm_npy_descr(cvm_elem elem)
{
    switch (elem) {
    case CVM_BOOL: return "|b1";
    case CVM_I8: return "|i1";
    case CVM_U8: return "|u1";
    case CVM_I16: return "<i2";
    case CVM_U16: return "<u2";
    case CVM_BF16: return "<u2";
    case CVM_I32: return "<i4";
    case CVM_U32: return "<u4";
    case CVM_I64: return "<i8";
    case CVM_U64: return "<u8";
    case CVM_F16: return "<f2";
    case CVM_F32: return "<f4";
    case CVM_F64: return "<f8";
    }
    return NULL;
}

/* ---- a tiny parser for the header's Python literal ---- */

typedef struct lexer {
    const char *p, *end;
    const char *name;
    cvm_diag *diag;
} lexer;

static void skip_space(lexer *lx)
{
    while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\n' || *lx->p == '\r'))
        lx->p++;
}

static cvm_status bad(lexer *lx, const char *what)
{
    return cvm_diag_set(lx->diag, CVM_MALFORMED, "%s: malformed .npy header: %s", lx->name, what);
}

static bool accept(lexer *lx, char c)
{
    skip_space(lx);
    if (lx->p < lx->end && *lx->p == c) {
        lx->p++;
        return true;
    }
    return false;
}

/* A quoted string ('...' or "...", no escapes: numpy never writes any) into buf. */
static cvm_status parse_string(lexer *lx, char *buf, size_t cap)
{
    skip_space(lx);
    if (lx->p >= lx->end || (*lx->p != '\'' && *lx->p != '"'))
        return bad(lx, "expected a quoted string");
    char q = *lx->p++;
    size_t n = 0;
    while (lx->p < lx->end && *lx->p != q) {
        if (*lx->p == '\\' || n + 1 >= cap)
            return bad(lx, "string too long or with escapes");
        if (!*lx->p) /* '<f4\0' would read as '<f4' */
            return bad(lx, "a NUL byte in a string");
        buf[n++] = *lx->p++;
    }
    if (lx->p >= lx->end)
        return bad(lx, "unterminated string");
    lx->p++;
    buf[n] = 0;
    return CVM_OK;
}

static cvm_status parse_bool(lexer *lx, bool *out)
{
    skip_space(lx);
    size_t left = (size_t)(lx->end - lx->p);
    if (left >= 4 && memcmp(lx->p, "True", 4) == 0) {
        lx->p += 4;
        *out = true;
        return CVM_OK;
    }
    if (left >= 5 && memcmp(lx->p, "False", 5) == 0) {
        lx->p += 5;
        *out = false;
        return CVM_OK;
    }
    return bad(lx, "'fortran_order' must be True or False");
}

/* A tuple of non-negative integers; the product goes to *count. */
static cvm_status parse_shape(lexer *lx, uint64_t *count, uint32_t *ndim)
{
    if (!accept(lx, '('))
        return bad(lx, "'shape' must be a tuple");
    uint64_t prod = 1;
    uint32_t n = 0;
    for (;;) {
        skip_space(lx);
        if (accept(lx, ')'))
            break;
        if (lx->p >= lx->end || *lx->p < '0' || *lx->p > '9')
            return bad(lx, "'shape' must hold non-negative integers");
        uint64_t v = 0;
        while (lx->p < lx->end && *lx->p >= '0' && *lx->p <= '9') {
            unsigned d = (unsigned)(*lx->p++ - '0');
            if (v > (UINT64_MAX - d) / 10)
                return bad(lx, "a 'shape' dimension overflows 64 bits");
            v = v * 10 + d;
        }
        if (lx->p < lx->end && *lx->p == 'L') /* Python 2 longs */
            lx->p++;
        if (v != 0 && prod > UINT64_MAX / v)
            return bad(lx, "the element count of 'shape' overflows 64 bits");
        prod *= v;
        if (++n > 64)
            return bad(lx, "'shape' has more than 64 dimensions");
        if (n == 1 && accept(lx, ')')) /* (8) is Python's 8, not a tuple: numpy refuses it */
            return cvm_diag_set(lx->diag, CVM_MALFORMED, "%s: malformed .npy header: 'shape' must be a "
                                "tuple: one dimension is written (%llu,)", lx->name, (unsigned long long)v);
        if (accept(lx, ')'))
            break;
        if (!accept(lx, ','))
            return bad(lx, "expected ',' or ')' in 'shape'");
    }
    *count = prod;
    *ndim = n;
    return CVM_OK;
}

static bool host_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

/* numpy's names and one-character codes of the types (np.dtype('float32')
 * and np.dtype('f') are '<f4'; numpy 1.24 on these 64-bit hosts): their
 * codes, in the host's byte order. */
static const struct {
    const char *name, *code;
} type_names[] = {
    {"bool", "b1"},    {"bool_", "b1"},    {"?", "b1"},        {"int8", "i1"},     {"byte", "i1"},
    {"b", "i1"},       {"uint8", "u1"},    {"ubyte", "u1"},    {"B", "u1"},        {"int16", "i2"},
    {"short", "i2"},   {"h", "i2"},        {"uint16", "u2"},   {"ushort", "u2"},   {"H", "u2"},
    {"int32", "i4"},   {"intc", "i4"},     {"i", "i4"},        {"uint32", "u4"},   {"uintc", "u4"},
    {"I", "u4"},       {"int64", "i8"},    {"int", "i8"},      {"int_", "i8"},     {"longlong", "i8"},
    {"l", "i8"},       {"q", "i8"},        {"uint64", "u8"},   {"uint", "u8"},     {"ulonglong", "u8"},
    {"L", "u8"},       {"Q", "u8"},        {"float16", "f2"},  {"half", "f2"},     {"e", "f2"},
    {"float32", "f4"}, {"single", "f4"},   {"f", "f4"},        {"float64", "f8"},  {"double", "f8"},
    {"float", "f8"},   {"float_", "f8"},   {"d", "f8"},
};

/* Maps a descr to an element type, with the reason when it cannot. As
 * numpy reads it: '|' before a wider type is the host's order like '=',
 * and a type's name stands for its code. */
static cvm_status map_descr(lexer *lx, const char *descr, cvm_vm_npy_header *out)
{
    char order = descr[0];
    const char *code = descr + 1;
    if (order != '<' && order != '>' && order != '|' && order != '=') {
        order = '=';
        code = descr;
        for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
            if (strcmp(descr, type_names[i].name) == 0)
                code = type_names[i].code;
    }
    if (code[0] == 'O' || code[0] == 'V' || code[0] == 'U' || code[0] == 'S' || code[0] == 'c')
        return cvm_diag_set(lx->diag, CVM_UNSUPPORTED,
                            "%s: dtype '%s' is not supported (object, void, string and complex "
                            "dtypes cannot be kernel buffers)", lx->name, descr);
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
        if (strcmp(code, dtypes[i].code) != 0)
            continue;
        unsigned size = cvm_bc_elem_size(dtypes[i].elem);
        bool little = order == '<' || ((order == '=' || order == '|') && host_little_endian());
        if (size > 1 && !little)
            return cvm_diag_set(lx->diag, CVM_UNSUPPORTED,
                                "%s: dtype '%s' is big-endian; only little-endian data is "
                                "supported (convert with arr.astype('<%s'))", lx->name, descr,
                                code);
        out->elem = dtypes[i].elem;
        out->elem_size = size;
        return CVM_OK;
    }
    return cvm_diag_set(lx->diag, CVM_UNSUPPORTED, "%s: dtype '%s' is not supported", lx->name,
                        descr);
}

/* Parses the dict; fills descr/elem/count/ndim of out. */
static cvm_status parse_dict(lexer *lx, cvm_vm_npy_header *out)
{
    bool have_descr = false, have_order = false, have_shape = false, fortran = false;
    if (!accept(lx, '{'))
        return bad(lx, "the header is not a dict");
    while (!accept(lx, '}')) {
        char key[32];
        cvm_status st = parse_string(lx, key, sizeof key);
        if (st)
            return st;
        if (!accept(lx, ':'))
            return bad(lx, "expected ':' after a key");
        if (strcmp(key, "descr") == 0 && !have_descr) {
            skip_space(lx);
            if (lx->p < lx->end && *lx->p == '[')
                return cvm_diag_set(lx->diag, CVM_UNSUPPORTED,
                                    "%s: structured dtypes are not supported", lx->name);
            if ((st = parse_string(lx, out->descr, sizeof out->descr)))
                return st;
            have_descr = true;
        } else if (strcmp(key, "fortran_order") == 0 && !have_order) {
            if ((st = parse_bool(lx, &fortran)))
                return st;
            have_order = true;
        } else if (strcmp(key, "shape") == 0 && !have_shape) {
            if ((st = parse_shape(lx, &out->count, &out->ndim)))
                return st;
            have_shape = true;
        } else {
            return bad(lx, "unknown or repeated key in the header dict");
        }
        if (!accept(lx, ',')) {
            if (!accept(lx, '}'))
                return bad(lx, "expected ',' or '}' in the header dict");
            break;
        }
    }
    if (!have_descr || !have_order || !have_shape)
        return bad(lx, "the header dict needs 'descr', 'fortran_order' and 'shape'");
    if (fortran && out->ndim > 1)
        return cvm_diag_set(lx->diag, CVM_UNSUPPORTED,
                            "%s: Fortran-order arrays are not supported; save a C-order array "
                            "(numpy.ascontiguousarray)", lx->name);
    return map_descr(lx, out->descr, out);
}

cvm_status cvm_vm_npy_parse(const void *image, size_t size, const char *name,
                            cvm_vm_npy_header *out, cvm_diag *diag)
{
    const uint8_t *b = image;
    memset(out, 0, sizeof *out);
    if (!name)
        name = "(npy)";
    if (size < sizeof magic || memcmp(b, magic, sizeof magic) != 0)
        return cvm_diag_set(diag, CVM_MALFORMED, "%s: not a .npy file (bad magic)", name);
    if (size < 10)
        return cvm_diag_set(diag, CVM_MALFORMED, "%s: truncated .npy file (%zu bytes, no header length)", name,
                            size);
    unsigned major = b[6];
    size_t hlen, hstart;
    if (major == 1) {
        hlen = (size_t)b[8] | (size_t)b[9] << 8;
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (size < 12)
            return cvm_diag_set(diag, CVM_MALFORMED, "%s: truncated .npy header", name);
        hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
        hstart = 12;
    } else {
        return cvm_diag_set(diag, CVM_UNSUPPORTED, "%s: .npy format version %u.%u is not supported",
                            name, major, b[7]);
    }
    if (hlen > CVM_VM_NPY_MAX_HEADER)
        return cvm_diag_set(diag, CVM_MALFORMED, "%s: .npy header length %zu exceeds %u bytes",
                            name, hlen, CVM_VM_NPY_MAX_HEADER);
    if (hlen > size - hstart)
        return cvm_diag_set(diag, CVM_MALFORMED,
                            "%s: truncated .npy header (%zu bytes announced, %zu present)", name,
                            hlen, size - hstart);
    lexer lx = {(const char *)b + hstart, (const char *)b + hstart + hlen, name, diag};
    out->version = major;
    cvm_status st = parse_dict(&lx, out);
    if (st)
        return st;
    skip_space(&lx);
    if (lx.p != lx.end)
        return bad(&lx, "junk after the header dict");
    out->data_offset = hstart + hlen;
    size_t have = size - out->data_offset;
    if (out->count > SIZE_MAX / out->elem_size || out->count * out->elem_size != have)
        return cvm_diag_set(diag, CVM_MALFORMED,
                            "%s: the shape needs %llu elements of %u bytes but the file holds "
                            "%zu data bytes", name, (unsigned long long)out->count,
                            out->elem_size, have);
    return CVM_OK;
}

size_t cvm_vm_npy_header_format(cvm_elem elem, uint64_t count, char *out)
{
    const char *descr = cvm_vm_npy_descr(elem);
    if (!descr)
        return 0;
    char dict[CVM_VM_NPY_HEADER_CAP];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%llu,), }",
                     descr, (unsigned long long)count);
    /* magic + version + length + dict + '\n', padded with spaces to 64 */
    size_t total = (10 + (size_t)n + 1 + 63) & ~(size_t)63;
    size_t hlen = total - 10;
    memcpy(out, magic, sizeof magic);
    out[6] = 1;
    out[7] = 0;
    out[8] = (char)(hlen & 0xff);
    out[9] = (char)(hlen >> 8);
    memcpy(out + 10, dict, (size_t)n);
    memset(out + 10 + n, ' ', hlen - (size_t)n - 1);
    out[total - 1] = '\n';
    return total;
}

/* ---- files ---- */

cvm_status cvm_vm_file_read(const char *path, cvm_alloc_fn fn, void *user, uint8_t **out,
                            size_t *out_size, cvm_diag *diag)
{
    cvm_status st = CVM_OK;
    uint8_t *buf = NULL;
    size_t len = 0;
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) /* before opening: a FIFO would block */
        return cvm_diag_set(diag, CVM_IO, "%s: not a regular file", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return cvm_diag_set(diag, CVM_IO, "%s: %s", path, strerror(errno));
    if (fstat(fileno(f), &sb) != 0) {
        st = cvm_diag_set(diag, CVM_IO, "%s: %s", path, strerror(errno));
        goto fail;
    }
    if (!S_ISREG(sb.st_mode)) {
        st = cvm_diag_set(diag, CVM_IO, "%s: not a regular file", path);
        goto fail;
    }
    if ((uint64_t)sb.st_size > SIZE_MAX - 1) {
        st = cvm_diag_set(diag, CVM_LIMIT, "%s: file too large", path);
        goto fail;
    }
    len = (size_t)sb.st_size;
    /* One spare byte so text files can be NUL-terminated by the caller. */
    buf = cvm_bc_alloc(fn, user, len + 1);
    if (!buf) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes", path, len + 1);
        goto fail;
    }
    if (len && fread(buf, 1, len, f) != len) {
        st = cvm_diag_set(diag, CVM_IO, "%s: read error", path);
        goto fail;
    }
    fclose(f);
    *out = buf;
    *out_size = len;
    return CVM_OK;
fail:
    cvm_bc_free(fn, user, buf, len + 1);
    fclose(f);
    return st;
}

cvm_status cvm_npy_load(const char *path, cvm_npy *out, cvm_diag *diag)
{
    uint8_t *image = NULL;
    size_t size = 0;
    if (!path || !out)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_npy_load: NULL argument");
    memset(out, 0, sizeof *out);
    cvm_status st = cvm_vm_file_read(path, NULL, NULL, &image, &size, diag);
    if (st)
        return st;
    cvm_vm_npy_header h;
    if ((st = cvm_vm_npy_parse(image, size, path, &h, diag)))
        goto fail;
    size_t bytes = size - h.data_offset;
    /* Moving the data to the front keeps one allocation and its alignment. */
    memmove(image, image + h.data_offset, bytes);
    if (h.elem == CVM_BOOL) /* numpy reads any nonzero byte as True; cubevm's bool is 0 or 1 */
        for (size_t i = 0; i < bytes; i++)
            image[i] = image[i] != 0;
    out->elem = h.elem;
    memcpy(out->descr, h.descr, sizeof out->descr);
    out->count = h.count;
    out->data = image;
    out->size = bytes;
    return CVM_OK;
fail:
    cvm_free_bytes(image);
    return st;
}

/* A file that replaces `path`: a new file beside it (`*tmp`, named in
 * tmpbuf), renamed over the path once complete (replace_commit), so a
 * failed write leaves the old file; it takes the old file's mode. The path
 * itself is written in place (`*tmp` NULL) where a new file would change
 * what the path is: not a regular file (a device, /dev/stdout, a FIFO), a
 * file with other hard links, a symbolic link that does not lead to a
 * regular file, or a directory where no new file can be made. A symbolic
 * link to a regular file keeps pointing at it. */
static FILE *replace_open(const char *path, char *tmpbuf, size_t cap, const char **tmp, char **final)
{
    struct stat st;
    *tmp = NULL;
    *final = NULL;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(*final = realpath(path, NULL)))
            return fopen(path, "wb");
        path = *final;
    }
    bool exists = stat(path, &st) == 0;
    if ((exists && (!S_ISREG(st.st_mode) || st.st_nlink > 1)) ||
        snprintf(tmpbuf, cap, "%s.%ld.tmp", path, (long)getpid()) >= (int)cap)
        return fopen(path, "wb");
    int fd = open(tmpbuf, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0)
        return fopen(path, "wb");
    if (exists)
        fchmod(fd, st.st_mode & 07777);
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        remove(tmpbuf);
        return fopen(path, "wb");
    }
    *tmp = tmpbuf;
    return f;
}

/* Closes f; renames the new file over `path` when the write succeeded
 * (`good`), removes it otherwise. Returns 0 or the errno of the failure. */
static int replace_close(FILE *f, bool good, int err, const char *path, const char *tmp, const char *final)
{
    if (fclose(f) != 0 && good)
        good = false, err = errno;
    if (good && tmp && rename(tmp, final ? final : path) != 0)
        good = false, err = errno;
    if (!good && tmp)
        remove(tmp);
    return good ? 0 : err ? err : EIO;
}

cvm_status cvm_npy_save(const char *path, cvm_elem elem, const void *data, uint64_t count,
                        cvm_diag *diag)
{
    if (!path || (count && !data))
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_npy_save: NULL %s", path ? "data" : "path");
    char header[CVM_VM_NPY_HEADER_CAP];
    size_t hlen = cvm_vm_npy_header_format(elem, count, header);
    if (!hlen)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "%s: invalid element type %d", path,
                            (int)elem);
    const uint64_t esz = cvm_bc_elem_size(elem);
    if (count > SIZE_MAX / esz)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "%s: %" PRIu64 " elements of %u bytes do not fit in memory",
                            path, count, (unsigned)esz);
    uint64_t bytes = count * esz;
    char tmpbuf[4096], *final;
    const char *tmp;
    FILE *f = replace_open(path, tmpbuf, sizeof tmpbuf, &tmp, &final);
    if (!f) {
        int err = errno;
        free(final);
        return cvm_diag_set(diag, CVM_IO, "%s: %s", path, strerror(err));
    }
    bool okw = fwrite(header, 1, hlen, f) == hlen &&
               (bytes == 0 || fwrite(data, 1, (size_t)bytes, f) == bytes);
    int err = replace_close(f, okw, errno, path, tmp, final);
    free(final);
    if (err)
        return cvm_diag_set(diag, CVM_IO, "%s: write error: %s", path, strerror(err));
    return CVM_OK;
}
