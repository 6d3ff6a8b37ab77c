/*
 * pool.c - the cpu device's worker threads and stream queues.
 *
 * Everything shared here is guarded by one mutex (the queues are short and
 * the work items long); cube execution itself runs unlocked, coordinated
 * by the run's atomic counter (vm/interp.c). The states are grown only
 * while no launch is active, by the thread that starts the next launch,
 * so workers never allocate.
 *
 * Waking a sleeping thread costs a futex call, an interrupt to its core
 * and, on a busy machine, a wait for the scheduler; a one-cube launch runs
 * in a microsecond. So small work is not announced: a launch of one cube,
 * or a buffer operation of at most SMALL_BYTES, waits in its queue for the
 * next thread that looks for work, which is a worker that is awake anyway
 * or the host thread when it waits for it (sync, read, map, output,
 * destroy, close) and runs it itself. Such work needs one thread, the
 * host's wait is the first moment anyone can observe it, and the public
 * API promises completion by the waits only; what is given up is overlap
 * of a long one-cube kernel with what the host does before it waits.
 * Larger work wakes one worker when queued, and a launch of several cubes
 * wakes the others when it starts; a queue longer than QUIET_MAX wakes a
 * worker whatever it holds, so a host that never waits does not pile up
 * work and memory. Workers and waiting hosts sleep on separate conditions:
 * finishing work wakes only the hosts that wait.
 */
#include "pool.h"

#include <string.h>
#include <time.h>

typedef struct worker_arg {
    cvm_vm_pool *pool;
    uint32_t slot;
} worker_arg;

/* Buffer operations up to this size run on whichever thread waits for them. */
#define SMALL_BYTES (64u << 10)
/* Beyond this many queued operations a worker is woken even for small ones,
 * so a host that queues without waiting does not pile up work and memory. */
#define QUIET_MAX 16u
#define NO_SLOT UINT32_MAX
/* How long a host that waits for another thread's operation spins before it
 * sleeps: going to sleep and being woken cost a few microseconds of system
 * calls and interrupts and, on a loaded machine, a wait for the scheduler,
 * while the operation waited for is often a cube or two from its end. */
#define SPIN_NS 20000

struct cvm_vm_pool {
    cvm_device *dev;
    pthread_mutex_t lock;
    pthread_cond_t work;     /* workers sleep here until work that wants them arrives */
    pthread_cond_t done;     /* waiting hosts sleep here until an operation completes */
    uint32_t sleeping;       /* workers waiting on `work` */
    uint32_t waiting;        /* hosts waiting on `done` */
    uint32_t nthreads;
    uint32_t started;        /* threads actually running */
    pthread_t *threads;
    worker_arg *args;
    cvm_vm_state **states;   /* nthreads + 1; the last is the waiting host's */
    bool helper_busy;        /* a host thread uses the last state */
    bool stop;
    cvm_vm_op *active;       /* the launch whose cubes are handed out */
    uint32_t solo;           /* the one state that runs it (one cube), else NO_SLOT */
    uint32_t participants;   /* threads inside cvm_vm_run_work for it */
    uint64_t pending;        /* queued or running operations */
    uint32_t running;        /* operations taken off their queues and not completed */
    uint64_t completed;      /* operations completed so far (atomic: read while spinning) */
};

void cvm_vm_pool_lock(cvm_vm_pool *pool) { pthread_mutex_lock(&pool->lock); }
void cvm_vm_pool_unlock(cvm_vm_pool *pool) { pthread_mutex_unlock(&pool->lock); }
uint32_t cvm_vm_pool_slots(const cvm_vm_pool *pool) { return pool->nthreads + 1; }

/* The stream's first error since its last sync (later ones are dropped). */
static void record_fault(cvm_stream *s, cvm_status st, const cvm_diag *d)
{
    if (s->fault != CVM_OK)
        return;
    s->fault = st;
    s->fault_diag = *d;
    s->fault_diag.status = st;
    if (!s->fault_diag.message[0])
        strncpy(s->fault_diag.message, cvm_status_str(st), sizeof s->fault_diag.message - 1);
}

static void drop_use(cvm_buffer *b)
{
    if (b && --b->uses == 0 && b->freed)
        cvm_vm_buffer_destroy(b);
}

/* An operation is over: its stream may go on, its buffers lose a use. */
static void complete(cvm_vm_pool *p, cvm_vm_op *op)
{
    op->stream->busy = false;
    p->running--;
    drop_use(op->dst);
    drop_use(op->src);
    for (uint32_t i = 0; i < op->nbufs; i++)
        drop_use(op->bufs[i]);
    if (op->kind == CVM_VM_OP_LAUNCH)
        ((cvm_module *)op->kernel->mod)->uses--;
    cvm_vm_op_release(p->dev, op, true);
    p->pending--;
    __atomic_store_n(&p->completed, __atomic_load_n(&p->completed, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELEASE);
    if (p->waiting)
        pthread_cond_broadcast(&p->done);
}

static uint64_t cube_count(const cvm_vm_op *op)
{
    return (uint64_t)op->L.grid[0] * op->L.grid[1] * op->L.grid[2];
}

/* Work that one thread does in about the time it takes to wake another
 * (a launch under the debugger never is: it starts at once, on a worker,
 * whether or not the host waits for it). */
static bool is_small(const cvm_vm_op *op)
{
    return op->kind == CVM_VM_OP_LAUNCH ? cube_count(op) <= 1 && !op->L.hook
                                        : op->size <= SMALL_BYTES;
}

static void wake_workers(cvm_vm_pool *p, uint64_t n)
{
    if (n >= p->sleeping)
        pthread_cond_broadcast(&p->work);
    else
        for (uint64_t i = 0; i < n; i++)
            pthread_cond_signal(&p->work);
}

static void run_buffer_op(const cvm_vm_op *op)
{
    switch (op->kind) {
    case CVM_VM_OP_WRITE:
        memcpy(op->dst->data + op->dst_off, op->staged, op->size);
        break;
    case CVM_VM_OP_COPY:
        memmove(op->dst->data + op->dst_off, op->src->data + op->src_off, op->size);
        break;
    case CVM_VM_OP_FILL:
        memset(op->dst->data + op->dst_off, op->byte, op->size);
        break;
    case CVM_VM_OP_LAUNCH:
        break;
    }
}

/* After launch op (run or refused), its checkers' memory goes back to the device. */
static void trim_states(cvm_vm_pool *p, const cvm_vm_op *op)
{
    if (op->L.racecheck || op->L.initcheck)
        for (uint32_t i = 0; i <= p->nthreads; i++)
            if (p->states[i])
                cvm_vm_state_trim(p->states[i]);
}

/*
 * Makes `op` the active launch, started by the thread with state `slot`;
 * false when it was completed at once (skipped or failing). A launch of
 * one cube is run by its starter alone, so only the starter's state is
 * made ready for it: the others stay as they are.
 */
static bool start_launch(cvm_vm_pool *p, cvm_vm_op *op, uint32_t slot)
{
    cvm_stream *s = op->stream;
    cvm_diag d;
    cvm_vm_diag_ok(&d);
    if (s->fault != CVM_OK) {
        s->skipped++; /* reported with the fault at the next sync */
        complete(p, op);
        return false;
    }
    bool solo = cube_count(op) == 1;
    uint32_t first = solo ? slot : 0, last = solo ? slot : p->nthreads;
    cvm_status st = cvm_vm_launch_prepare(op, &d);
    for (uint32_t i = first; st == CVM_OK && i <= last; i++) {
        /* States are made at their first launch, so an idle device holds little. */
        if (!p->states[i] && cvm_vm_state_new(cvm_vm_mem_alloc, &p->dev->mem, &p->states[i]))
            st = cvm_diag_set(&d, CVM_OUT_OF_MEMORY, "out of memory creating worker state %u", i);
        if (st == CVM_OK)
            st = cvm_vm_state_reserve(p->states[i], op->run, &d);
    }
    if (st) {
        trim_states(p, op);
        record_fault(s, st, &d);
        complete(p, op);
        return false;
    }
    cvm_vm_run_begin(op->run);
    p->active = op;
    p->solo = solo ? slot : NO_SLOT;
    /* The starting thread takes the first cubes; the others go to sleeping workers. */
    uint64_t others = cube_count(op) - 1;
    if (others && p->sleeping)
        wake_workers(p, others);
    return true;
}

static void finish_launch(cvm_vm_pool *p)
{
    cvm_vm_op *op = p->active;
    cvm_diag d;
    cvm_vm_diag_ok(&d);
    p->active = NULL;
    cvm_status st = p->solo == NO_SLOT
                        ? cvm_vm_run_finish(op->run, p->states, p->nthreads + 1, &d)
                        : cvm_vm_run_finish(op->run, &p->states[p->solo], 1, &d);
    trim_states(p, op);
    if (st)
        record_fault(op->stream, st, &d);
    complete(p, op);
}

static cvm_stream *next_stream(cvm_device *dev, cvm_stream *s)
{
    return s == &dev->stream ? dev->streams : s->next;
}

static bool startable(const cvm_vm_pool *p, const cvm_stream *s)
{
    return !s->busy && s->head && !(s->head->kind == CVM_VM_OP_LAUNCH && p->active);
}

/* The oldest operation of a stream that may start now (of stream `only`
 * when it is not NULL; a buffer operation when `buffers` is set), taken
 * off its queue. */
static cvm_vm_op *take(cvm_vm_pool *p, const cvm_stream *only, bool buffers)
{
    cvm_device *dev = p->dev;
    for (cvm_stream *s = &dev->stream; s; s = next_stream(dev, s)) {
        if (!startable(p, s) || (only && s != only) || (buffers && s->head->kind == CVM_VM_OP_LAUNCH))
            continue;
        cvm_vm_op *op = s->head;
        s->head = op->next;
        if (!s->head)
            s->tail = NULL;
        s->busy = true;
        p->running++;
        return op;
    }
    return NULL;
}

/* An operation could start now (any, or only one that wants a worker). */
static bool can_start(const cvm_vm_pool *p, bool any)
{
    const cvm_device *dev = p->dev;
    for (cvm_stream *s = (cvm_stream *)&dev->stream; s; s = next_stream(p->dev, s))
        if (startable(p, s) && (any || !is_small(s->head)))
            return true;
    return false;
}

/* Runs buffer operation op, taken off its queue, with the lock released
 * meanwhile (called and returns with the lock held). */
static void buffer_op_locked(cvm_vm_pool *p, cvm_vm_op *op)
{
    pthread_mutex_unlock(&p->lock);
    run_buffer_op(op);
    pthread_mutex_lock(&p->lock);
    complete(p, op);
}

/*
 * One step of work with state `slot`, of stream `only`'s operations when
 * it is not NULL; called and returns with the lock held. A thread that
 * starts a launch joins it at once (before anyone could see it), so a
 * one-cube launch always has its one participant.
 */
static bool work_once(cvm_vm_pool *p, uint32_t slot, const cvm_stream *only)
{
    cvm_vm_op *a = p->active;
    if (!a || !cvm_vm_run_open(a->run) || (p->solo != NO_SLOT && p->solo != slot) ||
        (only && a->stream != only)) {
        cvm_vm_op *op = take(p, only, false);
        if (!op)
            return false;
        if (op->kind != CVM_VM_OP_LAUNCH) {
            buffer_op_locked(p, op);
            return true;
        }
        if (!start_launch(p, op, slot))
            return true;
        a = op;
    }
    p->participants++;
    pthread_mutex_unlock(&p->lock);
    cvm_vm_run_work(a->run, p->states[slot]);
    pthread_mutex_lock(&p->lock);
    /* A worker leaves only when the run is closed: the last one out finishes it. */
    if (--p->participants == 0 && p->active == a && !cvm_vm_run_open(a->run))
        finish_launch(p);
    return true;
}

static void *worker_main(void *arg)
{
    worker_arg *w = arg;
    cvm_vm_pool *p = w->pool;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        if (work_once(p, w->slot, NULL))
            continue;
        p->sleeping++;
        pthread_cond_wait(&p->work, &p->lock);
        p->sleeping--;
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/*
 * Spins, unlocked, for up to SPIN_NS while another thread runs an
 * operation; true when one completed meanwhile. Only while something runs
 * (a launch, or an operation taken off a queue): otherwise nothing can
 * change until new work is queued, and that is worth no spinning.
 */
static bool spin_for_completion(cvm_vm_pool *p)
{
    if (!p->running)
        return false;
    uint64_t seen = __atomic_load_n(&p->completed, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&p->lock);
    int64_t until = now_ns() + SPIN_NS;
    bool changed = false;
    for (unsigned i = 1; !changed; i++) {
        changed = __atomic_load_n(&p->completed, __ATOMIC_ACQUIRE) != seen;
        if (i % 8 == 0 && now_ns() > until)
            break;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    pthread_mutex_lock(&p->lock);
    /* A completion after the last look, before the lock, wakes nobody: look again. */
    return changed || __atomic_load_n(&p->completed, __ATOMIC_RELAXED) != seen;
}

/*
 * Waits until done(arg) holds, executing work with the host's state while
 * it holds it: queued buffer operations of any stream first, then
 * launches: any stream's, or only stream `only`'s when it is not NULL (a
 * sync of one stream never starts or joins another stream's launch, which
 * may take long or never end). Work this thread cannot do while another
 * host holds that state goes to a worker; work that wants a worker and is
 * left when this thread leaves (a launch of another stream that could not
 * start while this one's ran) gets one.
 */
static void wait_until(cvm_vm_pool *p, bool (*done)(cvm_vm_pool *, void *), void *arg,
                       const cvm_stream *only)
{
    bool held = false;
    pthread_mutex_lock(&p->lock);
    while (!done(p, arg)) {
        /* Queued buffer operations, of any stream, go first: they need no
         * host state, and a launch may wait for one (a flag another stream
         * writes). */
        cvm_vm_op *op = take(p, NULL, true);
        if (op) {
            buffer_op_locked(p, op);
            continue;
        }
        if (!p->helper_busy || held) {
            p->helper_busy = held = true;
            if (work_once(p, p->nthreads, only))
                continue;
            p->helper_busy = held = false;
            if (p->waiting)
                pthread_cond_broadcast(&p->done); /* the host state is free again */
        } else if (p->sleeping && can_start(p, true)) {
            wake_workers(p, 1);
        }
        if (spin_for_completion(p))
            continue;
        p->waiting++;
        pthread_cond_wait(&p->done, &p->lock);
        p->waiting--;
    }
    if (held) {
        p->helper_busy = false;
        if (p->waiting)
            pthread_cond_broadcast(&p->done);
    }
    if (p->sleeping && can_start(p, false))
        wake_workers(p, 1);
    pthread_mutex_unlock(&p->lock);
}

static bool stream_idle(cvm_vm_pool *p, void *arg)
{
    const cvm_stream *s = arg;
    (void)p;
    return !s->head && !s->busy;
}

static bool buffer_idle(cvm_vm_pool *p, void *arg)
{
    (void)p;
    return ((const cvm_buffer *)arg)->uses == 0;
}

static bool all_idle(cvm_vm_pool *p, void *arg)
{
    (void)arg;
    return p->pending == 0;
}

void cvm_vm_pool_wait_stream(cvm_vm_pool *pool, cvm_stream *s) { wait_until(pool, stream_idle, s, s); }
void cvm_vm_pool_wait_buffer(cvm_vm_pool *pool, cvm_buffer *b) { wait_until(pool, buffer_idle, b, NULL); }

static bool module_idle(cvm_vm_pool *p, void *arg)
{
    (void)p;
    return ((const cvm_module *)arg)->uses == 0;
}

void cvm_vm_pool_wait_module(cvm_vm_pool *pool, cvm_module *m) { wait_until(pool, module_idle, m, NULL); }
void cvm_vm_pool_wait_all(cvm_vm_pool *pool) { wait_until(pool, all_idle, NULL, NULL); }

void cvm_vm_pool_submit(cvm_vm_pool *p, cvm_vm_op *op)
{
    pthread_mutex_lock(&p->lock);
    if (op->dst)
        op->dst->uses++;
    if (op->src)
        op->src->uses++;
    for (uint32_t i = 0; i < op->nbufs; i++)
        op->bufs[i]->uses++;
    if (op->kind == CVM_VM_OP_LAUNCH)
        ((cvm_module *)op->kernel->mod)->uses++;
    op->next = NULL;
    cvm_stream *s = op->stream;
    if (s->tail)
        s->tail->next = op;
    else
        s->head = op;
    s->tail = op;
    p->pending++;
    if (p->sleeping && (!is_small(op) || p->pending > QUIET_MAX))
        wake_workers(p, 1);
    /* A host that waits (for a buffer or for the device) may now wait for this too. */
    if (p->waiting)
        pthread_cond_broadcast(&p->done);
    pthread_mutex_unlock(&p->lock);
}

static void stop_threads(cvm_vm_pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (uint32_t i = 0; i < p->started; i++)
        pthread_join(p->threads[i], NULL);
    p->started = 0;
}

void cvm_vm_pool_free(cvm_vm_pool *p)
{
    if (!p)
        return;
    cvm_device *dev = p->dev;
    if (p->started)
        cvm_vm_pool_wait_all(p);
    stop_threads(p);
    if (p->states)
        for (uint32_t i = 0; i <= p->nthreads; i++)
            cvm_vm_state_free(p->states[i]);
    cvm_vm_dev_free(dev, p->states, (p->nthreads + 1) * sizeof *p->states);
    cvm_vm_dev_free(dev, p->threads, p->nthreads * sizeof *p->threads);
    cvm_vm_dev_free(dev, p->args, p->nthreads * sizeof *p->args);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->lock);
    cvm_vm_dev_free(dev, p, sizeof *p);
}

cvm_status cvm_vm_pool_new(cvm_device *dev, uint32_t threads, cvm_vm_pool **out, cvm_diag *diag)
{
    *out = NULL;
    cvm_vm_pool *p = cvm_vm_dev_alloc(dev, sizeof *p);
    if (!p)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory creating the worker pool");
    p->dev = dev;
    p->nthreads = threads ? threads : 1;
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        cvm_vm_dev_free(dev, p, sizeof *p);
        return cvm_diag_set(diag, CVM_INTERNAL, "cannot create the worker pool's lock");
    }
    if (pthread_cond_init(&p->work, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        cvm_vm_dev_free(dev, p, sizeof *p);
        return cvm_diag_set(diag, CVM_INTERNAL, "cannot create the worker pool's condition");
    }
    if (pthread_cond_init(&p->done, NULL) != 0) {
        pthread_cond_destroy(&p->work);
        pthread_mutex_destroy(&p->lock);
        cvm_vm_dev_free(dev, p, sizeof *p);
        return cvm_diag_set(diag, CVM_INTERNAL, "cannot create the worker pool's condition");
    }
    cvm_status st = CVM_OK;
    p->states = cvm_vm_dev_alloc(dev, (p->nthreads + 1) * sizeof *p->states);
    p->threads = cvm_vm_dev_alloc(dev, p->nthreads * sizeof *p->threads);
    p->args = cvm_vm_dev_alloc(dev, p->nthreads * sizeof *p->args);
    if (!p->states || !p->threads || !p->args) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory creating %u workers", p->nthreads);
        goto fail;
    }
    for (uint32_t i = 0; i < p->nthreads; i++) {
        p->args[i] = (worker_arg){p, i};
        if (pthread_create(&p->threads[i], NULL, worker_main, &p->args[i]) != 0) {
            st = cvm_diag_set(diag, CVM_UNAVAILABLE, "cannot start worker thread %u of %u", i + 1,
                              p->nthreads);
            goto fail;
        }
        p->started++;
    }
    *out = p;
    return CVM_OK;
fail:
    cvm_vm_pool_free(p);
    return st;
}
