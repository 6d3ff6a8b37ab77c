/*
 * api_module.c - modules and kernels of the public API, and the bytecode
 * tool wrappers (assemble, disassemble, verify).
 *
 * Loading is the security boundary of docs/design.md item 10: bytes are copied
 * (cvm_bc_module_read), verified, pre-decoded into an interpreter program,
 * and only then does anything execute them; the device then builds its
 * own form of it (dev->ops->module_init). Global symbols become device
 * buffers named after the symbol, so fault reports and the region table
 * treat them like any other allocation.
 */
#include "api.h"

#include "npy.h"

#include <stdio.h>
#include <string.h>

/* Allocates the module's global symbols (zero + initializer) and symbol values. */
static cvm_status init_symbols(cvm_module *m, cvm_diag *diag)
{
    const cvm_bc_module *bc = m->bc;
    size_t n = bc->nsymbols ? bc->nsymbols : 1;
    m->symbufs = cvm_vm_dev_alloc(m->dev, n * sizeof *m->symbufs);
    m->sym_value = cvm_vm_dev_alloc(m->dev, n * sizeof *m->sym_value);
    /* The const space starts as the module data (constant symbols sit at their
     * initializer offsets); a space larger than the data is zero-extended so the
     * interpreter never reads past the module's arrays. */
    m->const_data = cvm_vm_dev_alloc(m->dev, bc->const_size ? bc->const_size : 1);
    if (!m->symbufs || !m->sym_value || !m->const_data)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory loading module symbols");
    if (bc->ndata)
        memcpy(m->const_data, bc->data, bc->ndata < bc->const_size ? bc->ndata : bc->const_size);
    for (uint32_t i = 0; i < bc->nsymbols; i++) {
        const cvm_bc_symbol *sym = &bc->symbols[i];
        if (sym->space == CVM_SYM_CONST) {
            /* Constant symbols live in the module's constant data at their initializer. */
            m->sym_value[i] = sym->init_off;
            continue;
        }
        cvm_status st = m->dev->ops->buffer_alloc(m->dev, sym->size, cvm_bc_str(bc, sym->name),
                                                  &m->symbufs[i], diag);
        if (st)
            return st;
        if (sym->init_size)
            memcpy(m->symbufs[i]->data, bc->data + sym->init_off, sym->init_size);
        m->sym_value[i] = CVM_VM_PTR_MAKE((uintptr_t)m->symbufs[i]->data, m->symbufs[i]->tag);
    }
    return CVM_OK;
}

void cvm_vm_module_release(cvm_module *m)
{
    if (!m)
        return;
    cvm_device *dev = m->dev;
    pthread_mutex_lock(&dev->lock);
    if (m->prev)
        m->prev->next = m->next;
    else if (dev->modules == m)
        dev->modules = m->next;
    if (m->next)
        m->next->prev = m->prev;
    pthread_mutex_unlock(&dev->lock);
    uint32_t nsyms = m->bc ? m->bc->nsymbols : 0;
    if (m->symbufs)
        for (uint32_t i = 0; i < nsyms; i++)
            cvm_buffer_free(m->symbufs[i]);
    size_t n = nsyms ? nsyms : 1;
    cvm_vm_dev_free(dev, m->symbufs, n * sizeof *m->symbufs);
    cvm_vm_dev_free(dev, m->sym_value, n * sizeof *m->sym_value);
    if (m->bc)
        cvm_vm_dev_free(dev, m->const_data, m->bc->const_size ? m->bc->const_size : 1);
    if (m->bc)
        cvm_vm_dev_free(dev, m->kernels, (m->bc->nkernels ? m->bc->nkernels : 1) * sizeof *m->kernels);
    dev->ops->module_fini(m);
    if (m->ver)
        cvm_bc_verified_free(m->bc, m->ver);
    if (m->bc)
        cvm_bc_module_free(m->bc);
    cvm_vm_dev_free(dev, m, sizeof *m);
}

cvm_status cvm_vm_cpu_module_init(cvm_module *m, cvm_diag *diag)
{
    return cvm_vm_program_build(m->bc, m->ver, cvm_vm_mem_alloc, &m->dev->mem, &m->prog, diag);
}

void cvm_vm_cpu_module_fini(cvm_module *m)
{
    if (m->prog)
        cvm_vm_program_free(m->prog);
    m->prog = NULL;
}

/* Takes ownership of `bc` (freed on failure too): verifies, builds, links. */
static cvm_status load_bc(cvm_device *dev, cvm_bc_module *bc, cvm_module **out_mod,
                          cvm_diag *diag)
{
    cvm_status st;
    cvm_module *m = cvm_vm_dev_alloc(dev, sizeof *m);
    if (!m) {
        cvm_bc_module_free(bc);
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory loading a module");
    }
    m->dev = dev;
    m->bc = bc;
    if ((st = cvm_bc_verify(bc, &m->ver, diag)))
        goto fail;
    if ((st = dev->ops->module_init(m, diag)))
        goto fail;
    m->kernels = cvm_vm_dev_alloc(dev, (bc->nkernels ? bc->nkernels : 1) * sizeof *m->kernels);
    if (!m->kernels) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory loading a module");
        goto fail;
    }
    for (uint32_t i = 0; i < bc->nkernels; i++)
        m->kernels[i] = (cvm_kernel){m, i};
    if ((st = init_symbols(m, diag)))
        goto fail;
    pthread_mutex_lock(&dev->lock);
    m->next = dev->modules;
    if (dev->modules)
        dev->modules->prev = m;
    dev->modules = m;
    pthread_mutex_unlock(&dev->lock);
    *out_mod = m;
    return CVM_OK;
fail:
    cvm_vm_module_release(m);
    return st;
}

cvm_status cvm_module_load(cvm_device *dev, const void *bytes, size_t size, cvm_module **out_mod,
                           cvm_diag *diag)
{
    if (!dev || !out_mod || (size && !bytes))
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_module_load: NULL argument");
    *out_mod = NULL;
    cvm_bc_module *bc = NULL;
    cvm_status st = cvm_bc_module_read(bytes, size, cvm_vm_mem_alloc, &dev->mem, &bc, diag);
    if (st)
        return st;
    return load_bc(dev, bc, out_mod, diag);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/*
 * Assembles .cbs text and verifies it, so that a verifier error comes back
 * at the instruction's file:line:col (the .kernel line for a header
 * error). *out is the module on success.
 */
static cvm_status assemble_verified(const char *text, size_t len, const char *file, cvm_alloc_fn fn,
                                    void *user, cvm_bc_module **out, cvm_diag *diag)
{
    cvm_bc_srcmap *map = NULL;
    if (len >= 4 && memcmp(text, "CBC\x1a", 4) == 0)
        return cvm_diag_set(diag, CVM_SYNTAX, "%s: a binary .cbc module, not .cbs text "
                            "(cubevm disasm prints its text)", file);
    cvm_status st = cvm_bc_assemble_map(text, len, file, fn, user, out, &map, diag);
    if (st)
        return st;
    cvm_bc_verified *ver = NULL;
    cvm_bc_where where;
    cvm_diag vd;
    memset(&vd, 0, sizeof vd);
    st = cvm_bc_verify_at(*out, &ver, &vd, &where);
    uint32_t line = 0, col = 0;
    if (st == CVM_VERIFY && cvm_bc_srcmap_find(map, where.kernel, where.pc, &line, &col)) {
        st = cvm_diag_set(diag, CVM_VERIFY, "%s:%u:%u: error: %s", file, line, col, vd.message);
        if (diag) {
            snprintf(diag->file, sizeof diag->file, "%s", file);
            diag->line = line, diag->col = col;
        }
    } else if (st && diag) {
        *diag = vd;
    }
    if (!st)
        cvm_bc_verified_free(*out, ver);
    cvm_bc_srcmap_free(map);
    if (st) {
        cvm_bc_module_free(*out);
        *out = NULL;
    }
    return st;
}

cvm_status cvm_module_load_file(cvm_device *dev, const char *path, cvm_module **out_mod,
                                cvm_diag *diag)
{
    if (!dev || !path || !out_mod)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_module_load_file: NULL argument");
    *out_mod = NULL;
    uint8_t *data = NULL;
    size_t size = 0;
    cvm_status st = cvm_vm_file_read(path, cvm_vm_mem_alloc, &dev->mem, &data, &size, diag);
    if (st)
        return st;
    cvm_bc_module *bc = NULL;
    if (ends_with(path, ".cbs"))
        st = assemble_verified((const char *)data, size, path, cvm_vm_mem_alloc, &dev->mem, &bc, diag);
    else
        st = cvm_bc_module_read(data, size, cvm_vm_mem_alloc, &dev->mem, &bc, diag);
    cvm_vm_dev_free(dev, data, size + 1);
    if (st) {
        /* Binary errors carry an offset but no file: say which file. */
        if (diag && !diag->file[0])
            snprintf(diag->file, sizeof diag->file, "%s", path);
        return st;
    }
    return load_bc(dev, bc, out_mod, diag);
}

/* Queued launches of its kernels may still use the module's code and
 * symbols: wait for them first (only them: another module's launch may be
 * waiting for something this host does next). */
void cvm_module_free(cvm_module *mod)
{
    if (!mod)
        return;
    mod->dev->ops->module_wait(mod);
    cvm_vm_module_release(mod);
}

uint32_t cvm_module_kernel_count(const cvm_module *mod) { return mod ? mod->bc->nkernels : 0; }

const char *cvm_module_kernel_name(const cvm_module *mod, uint32_t i)
{
    if (!mod || i >= mod->bc->nkernels)
        return NULL;
    return cvm_bc_str(mod->bc, mod->bc->kernels[i].name);
}

cvm_status cvm_kernel_get(const cvm_module *mod, const char *name, const cvm_kernel **out_kernel,
                          cvm_diag *diag)
{
    if (!mod || !name || !out_kernel)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_kernel_get: NULL argument");
    *out_kernel = NULL;
    for (uint32_t i = 0; i < mod->bc->nkernels; i++) {
        if (strcmp(cvm_module_kernel_name(mod, i), name) == 0) {
            *out_kernel = &mod->kernels[i];
            return CVM_OK;
        }
    }
    return cvm_diag_set(diag, CVM_NOT_FOUND, "no kernel named '%s' in the module", name);
}

void cvm_kernel_info_get(const cvm_kernel *k, cvm_kernel_info *out_info)
{
    if (!out_info)
        return;
    memset(out_info, 0, sizeof *out_info);
    if (!k)
        return;
    const cvm_bc_kernel *bk = &k->mod->bc->kernels[k->index];
    out_info->name = cvm_bc_str(k->mod->bc, bk->name);
    out_info->param_count = bk->nparams;
    out_info->plane_width = bk->plane_width;
    out_info->plane_width_hint = bk->plane_width && !(bk->flags & CVM_KF_FIXED_WIDTH);
    out_info->shared_bytes = bk->shared_bytes;
    out_info->local_bytes = bk->local_bytes;
    out_info->max_cube_units = bk->max_cube;
}

cvm_status cvm_kernel_param(const cvm_kernel *k, uint32_t i, cvm_param_info *out_param)
{
    if (!k || !out_param)
        return CVM_INVALID_ARGUMENT;
    const cvm_bc_kernel *bk = &k->mod->bc->kernels[k->index];
    memset(out_param, 0, sizeof *out_param);
    if (i >= bk->nparams)
        return CVM_NOT_FOUND;
    const cvm_bc_param *p = &bk->params[i];
    out_param->name = cvm_bc_str(k->mod->bc, p->name);
    out_param->kind = (cvm_param_kind)p->kind;
    out_param->elem = (cvm_elem)p->elem;
    out_param->line = p->line ? p->line : 1;
    out_param->access = (cvm_access)p->access;
    out_param->size = p->kind == CVM_PARAM_BUFFER ? 8 : p->size;
    return CVM_OK;
}

/* ---- bytecode tools (default allocator; results released with cvm_free_bytes) ---- */

cvm_status cvm_assemble(const char *text, size_t len, const char *filename, void **out_bytes,
                        size_t *out_size, cvm_diag *diag)
{
    if (!text || !out_bytes || !out_size)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_assemble: NULL argument");
    *out_bytes = NULL;
    *out_size = 0;
    cvm_bc_module *bc = NULL;
    cvm_status st = assemble_verified(text, len, filename ? filename : "<input>", cvm_default_alloc, NULL,
                                      &bc, diag);
    if (st)
        return st;
    st = cvm_bc_module_write(bc, out_bytes, out_size, diag);
    cvm_bc_module_free(bc);
    return st;
}

cvm_status cvm_disassemble(const void *bytes, size_t size, char **out_text, cvm_diag *diag)
{
    if (!out_text || (size && !bytes))
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_disassemble: NULL argument");
    *out_text = NULL;
    cvm_bc_module *bc = NULL;
    cvm_status st = cvm_bc_module_read(bytes, size, cvm_default_alloc, NULL, &bc, diag);
    if (st)
        return st;
    size_t len = 0;
    st = cvm_bc_disassemble(bc, out_text, &len, diag);
    cvm_bc_module_free(bc);
    return st;
}

cvm_status cvm_verify(const void *bytes, size_t size, cvm_diag *diag)
{
    if (size && !bytes)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_verify: NULL bytes");
    cvm_bc_module *bc = NULL;
    cvm_bc_verified *ver = NULL;
    cvm_status st = cvm_bc_module_read(bytes, size, cvm_default_alloc, NULL, &bc, diag);
    if (st)
        return st;
    st = cvm_bc_verify(bc, &ver, diag);
    if (st == CVM_OK)
        cvm_bc_verified_free(bc, ver);
    cvm_bc_module_free(bc);
    return st;
}

void cvm_free_bytes(void *p)
{
    if (p)
        cvm_default_alloc(NULL, p, 0, 0);
}

/* ---- module-scope symbols ---- */

/*
 * The bytes of symbol `name` for a host copy of [offset, offset + size):
 * its buffer for global symbols, the module's const space for constants.
 */
static cvm_status symbol_bytes(cvm_stream *s, cvm_module *m, const char *name, size_t offset,
                               size_t size, const void *mem, const char *fn, uint8_t **out,
                               cvm_diag *diag)
{
    if (!s || !m || !name || (size && !mem))
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "%s: NULL argument", fn);
    if (s->dev != m->dev)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "%s: the module belongs to another device",
                            fn);
    const cvm_bc_module *bc = m->bc;
    for (uint32_t i = 0; i < bc->nsymbols; i++) {
        const cvm_bc_symbol *sym = &bc->symbols[i];
        if (strcmp(cvm_bc_str(bc, sym->name), name) != 0)
            continue;
        if (offset > sym->size || size > sym->size - offset)
            return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                                "%s: range [%zu, +%zu) is outside symbol '%s' of %u bytes", fn,
                                offset, size, name, sym->size);
        if (sym->space != CVM_SYM_CONST) {
            *out = m->symbufs[i]->data + offset;
            return CVM_OK;
        }
        /* The reader bounds constants by the const space; checked again because
         * a host write through a bad offset would corrupt the heap. */
        if (m->sym_value[i] > bc->const_size || sym->size > bc->const_size - m->sym_value[i])
            return cvm_diag_set(diag, CVM_INTERNAL, "%s: constant '%s' lies outside the const space",
                                fn, name);
        *out = m->const_data + m->sym_value[i] + offset;
        return CVM_OK;
    }
    return cvm_diag_set(diag, CVM_NOT_FOUND, "%s: the module has no symbol named '%s'", fn, name);
}

cvm_status cvm_module_symbol_info(const cvm_module *mod, const char *name,
                                  cvm_symbol_info *out_info, cvm_diag *diag)
{
    if (!mod || !name || !out_info)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_module_symbol_info: NULL argument");
    memset(out_info, 0, sizeof *out_info); /* a failure leaves it zeroed (docs/api.md "Ownership") */
    const cvm_bc_module *bc = mod->bc;
    for (uint32_t i = 0; i < bc->nsymbols; i++) {
        const cvm_bc_symbol *sym = &bc->symbols[i];
        if (strcmp(cvm_bc_str(bc, sym->name), name) != 0)
            continue;
        out_info->elem = (cvm_elem)sym->elem;
        out_info->size = sym->size;
        out_info->constant = sym->space == CVM_SYM_CONST;
        return CVM_OK;
    }
    return cvm_diag_set(diag, CVM_NOT_FOUND,
                        "cvm_module_symbol_info: the module has no symbol named '%s'", name);
}

cvm_status cvm_module_symbol_write(cvm_stream *s, cvm_module *mod, const char *name,
                                   size_t offset, const void *src, size_t size, cvm_diag *diag)
{
    uint8_t *p = NULL;
    cvm_status st = symbol_bytes(s, mod, name, offset, size, src, "cvm_module_symbol_write", &p,
                                 diag);
    if (st == CVM_OK && size) {
        cvm_vm_stream_wait(s); /* in order with the stream's queued launches */
        memcpy(p, src, size);
    }
    return st;
}

cvm_status cvm_module_symbol_read(cvm_stream *s, cvm_module *mod, const char *name,
                                  size_t offset, void *dst, size_t size, cvm_diag *diag)
{
    uint8_t *p = NULL;
    cvm_status st = symbol_bytes(s, mod, name, offset, size, dst, "cvm_module_symbol_read", &p,
                                 diag);
    if (st == CVM_OK && size) {
        cvm_vm_stream_wait(s);
        memcpy(dst, p, size);
    }
    return st;
}
