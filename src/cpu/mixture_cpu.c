#include "mixture_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/batch.h"
#include "../core/mixture_g.h"
#include "bessel_table.h"
#include "blas.h"
#include "blas_threads.h"
#include "mixg_block.h"
#include "slots.h"

/* Rows per block (per BLAS call for large d, where short blocks would leave
 * the level-3 calls dominated by packing the d x d operands), and the
 * fixed number of slots whose partial sums are added in order (so that the
 * result does not depend on the thread count). */
#define MIX_BLOCK 128
#define MIX_BLOCK_LARGE_D 512
#define MIX_SLOTS 16
/* Rows of each slot per round; the interrupt is polled between rounds. */
#define MIX_ROUND 8192
/* Fewer rows than this run on the calling thread: waking a team costs more
 * than the rows (about 0.1-0.5 us each). */
#define MIX_PARALLEL_MIN 4096
/* A row whose K_q is evaluated exactly (no table) costs about this many
 * tabulated ones (0.4-0.6 us against 0.1). */
#define MIX_EXACT_ROW 4
/* Up to this d the triangular solve and the rank-k update are loops here:
 * for small d the BLAS calls cost more than the work (reference BLAS: 30%
 * of a NIG E-step at d = 10); above, R's BLAS (level 3) does them. */
#define MIX_SMALL_D 48
/* From this many rows on, an E-step whose rows need more than the
 * half-integer closed form evaluates K_q from a table built for it
 * (bessel_table.h: a few hundred exact evaluations, verified). */
#define MIX_TABLE_MIN_ROWS 4096

#ifdef _OPENMP
#define MIX_PRAGMA(x) _Pragma(#x)
#else
#define MIX_PRAGMA(x)
#endif
#define MIX_SIMD MIX_PRAGMA(omp simd)

/* A thread's buffers for one block of up to `rows` rows. */
typedef struct {
  double *u;  /* rows x d: x - m, then sqrt(w) (x - m) */
  double *z;  /* rows x d: L^-1 (x - m), column j at z + j m */
  double *q;  /* Q of each row */
  double *b;  /* B of each row */
  double *w;  /* v E[1/Y | x] (v the row's weight), 0 for rows left out */
  double *sw; /* sqrt(w) */
  double *ok; /* v for rows in the sums (1 without weights), else 0 */
  /* the rows that take K_q from the table: their arguments (by row), the
   * table's x and log x and values (by position in `tabled`) */
  ghmix_mix_row_arg_t *arg;
  double *tab_x, *tab_t;
  ghmix_bessel_result *kq;
  int *tabled;
} mix_work;

/* Rows per block: MIX_BLOCK for small d; for large d up to
 * MIX_BLOCK_LARGE_D rows and 2^21 doubles (16 MB) per buffer, but short
 * enough that n rows fill all the slots (threads need slots to share). */
static size_t mix_block_rows(int d, size_t n) {
  size_t rows = ((size_t)1 << 21) / (size_t)d, fill = n / MIX_SLOTS;
  if (rows > MIX_BLOCK_LARGE_D)
    rows = MIX_BLOCK_LARGE_D;
  if (rows > fill)
    rows = fill;
  return d <= MIX_SMALL_D || rows < MIX_BLOCK ? MIX_BLOCK : rows;
}

/* Z = U L^-T (row i of Z is L^-1 u_i) by forward substitution, one column
 * at a time over all m rows. */
static void mix_solve_small(const double *chol, int d, int m, double *z) {
  int i, j, k;
  for (j = 0; j < d; j++) {
    double *zj = z + (size_t)j * m, inv = 1.0 / chol[(size_t)j * d + j];
    for (k = 0; k < j; k++) {
      const double *zk = z + (size_t)k * m, ljk = chol[(size_t)k * d + j];
      MIX_SIMD
      for (i = 0; i < m; i++)
        zj[i] -= ljk * zk[i];
    }
    MIX_SIMD
    for (i = 0; i < m; i++)
      zj[i] *= inv;
  }
}

/* sum_i a[i] b[i] in four interleaved partial sums (a reduction the
 * compiler keeps in registers, unlike an omp simd reduction). */
static double mix_dot(const double *a, const double *b, int m) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int i;
  for (i = 0; i + 4 <= m; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < m; i++)
    s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

/* Lower triangle of sxx += V' V, V the m x d block (column-major). */
static void mix_syrk_small(const double *v, int d, int m, double *sxx) {
  int r, c;
  for (c = 0; c < d; c++)
    for (r = c; r < d; r++)
      sxx[(size_t)c * d + r] +=
          mix_dot(v + (size_t)r * m, v + (size_t)c * m, m);
}

/* Q and B of each row from Z = U L^-T. */
static void mix_quad_forms(const double *z, const double *g, int d, int m,
                           double *q, double *b) {
  int i, j;
  for (i = 0; i < m; i++)
    q[i] = b[i] = 0;
  for (j = 0; j < d; j++) {
    const double *zj = z + (size_t)j * m, gj = g[j];
    MIX_SIMD
    for (i = 0; i < m; i++) {
      q[i] += zj[i] * zj[i];
      b[i] += gj * zj[i];
    }
  }
}

/* Where the blocks of one component's statistics lie (estep.h): the
 * scalar statistics, and the vectors. */
typedef struct {
  size_t scalar[GHMIX_STAT_NSCALAR];
  size_t u, inv_y_u, inv_y_uu;
} mix_offsets;

static void mix_offsets_init(const ghmix_estep_shape *shape, mix_offsets *o) {
  int id;
  for (id = 0; id < GHMIX_STAT_NSCALAR; id++)
    o->scalar[id] = ghmix_estep_stat(shape, 0, (ghmix_stat_id)id).offset;
  o->u = ghmix_estep_stat(shape, 0, GHMIX_STAT_U).offset;
  o->inv_y_u = ghmix_estep_stat(shape, 0, GHMIX_STAT_INV_Y_U).offset;
  o->inv_y_uu = ghmix_estep_stat(shape, 0, GHMIX_STAT_INV_Y_UU).offset;
}

/* One E-step's shared inputs, read-only in the parallel regions but for
 * each slot's own sums and Q range and each thread's own buffers.
 * slot_stats: nslots x nstats partial sums (the scalar ones filled from
 * slot_terms at the end); slot_terms: nslots x GHMIX_TERM_COUNT sums of the
 * row terms, each in row order, whence each scalar statistic (the sum of
 * its term); qmin / qmax: per-slot range of Q (the range pass); fq, fb:
 * every row's Q and B from the range pass, or NULL; tab: K_q tabulated
 * for this E-step, or NULL; work: one set of buffers per thread; weights:
 * the rows' weights, or NULL. */
typedef struct {
  const double *x, *weights;
  size_t n, ldx, nstats;
  int d;
  ghmix_slots sl;
  const ghmix_mix_component *comp;
  const ghmix_bessel_table *tab;
  mix_offsets at;
  double *slot_stats, *slot_terms, *rows, *qmin, *qmax, *fq, *fb;
  mix_work *work;
} mix_job;

/* U = X - m for the rows [lo, lo + m), also into z when z is not NULL. */
static void mix_block_center(const mix_job *job, size_t lo, int m, double *u,
                             double *z) {
  const double *center = job->comp->center;
  int i, j;
  for (j = 0; j < job->d; j++) {
    const double *xj = job->x + (size_t)j * job->ldx + lo;
    const double cj = center[j];
    double *uj = u + (size_t)j * m;
    MIX_SIMD
    for (i = 0; i < m; i++)
      uj[i] = xj[i] - cj;
    if (z != NULL)
      memcpy(z + (size_t)j * m, uj, sizeof(double) * (size_t)m);
  }
}

/* Z = L^-1 (x - m) and Q, B for the rows [lo, lo + m). */
static void mix_block_forms(const mix_job *job, size_t lo, int m, mix_work *w) {
  const ghmix_mix_component *comp = job->comp;
  const int d = job->d;
  const double one = 1.0;
  mix_block_center(job, lo, m, w->u, w->z);
  if (d <= MIX_SMALL_D)
    mix_solve_small(comp->chol, d, m, w->z);
  else
    dtrsm_("R", "L", "T", "N", &m, &d, &one, comp->chol, &d, w->z, &m, 1, 1, 1,
           1);
  mix_quad_forms(w->z, comp->g, d, m, w->q, w->b);
}

/* Whether none of the m rows of Q, B needs z = L^-1 (x - m) (a Q that
 * overflowed, a heavy B): the main pass can then take the range pass's
 * Q and B for them. */
static int mix_forms_plain(const ghmix_mix_const *c, const double *q,
                           const double *b, int m) {
  int i;
  for (i = 0; i < m; i++)
    if (isinf(q[i]) || ghmix_mix_row_is_heavy(c, b[i]))
      return 0;
  return 1;
}

/* The rows of the block that take K_q from the table (w->tabled, in row
 * order) and their table values (w->kq), all at once
 * (ghmix_bessel_table_eval_n); returns how many. */
static int mix_block_tabled(const mix_job *job, int m, mix_work *w) {
  const ghmix_mix_const *c = &job->comp->c;
  int i, nt = 0;
  if (job->tab == NULL)
    return 0;
  for (i = 0; i < m; i++)
    if (!ghmix_mix_row_is_heavy(c, w->b[i]) && !isinf(w->q[i]) &&
        !isnan(w->b[i]) && ghmix_mix_row_arg(c, w->q[i], &w->arg[i])) {
      w->tab_x[nt] = w->arg[i].x;
      w->tab_t[nt] = w->arg[i].ls + 2 * c->log_sqrt_a;
      w->tabled[nt++] = i;
    }
  if (nt > 0)
    ghmix_bessel_table_eval_n(job->tab, nt, w->tab_x, w->tab_t, w->kq);
  return nt;
}

/* Row i of the block starting at row lo (k: K_q's values from the table,
 * or NULL): its output row, its weights in w, its terms (times *wt, the
 * row's weight, unless wt is NULL) added to acc; a row not accepted (or of
 * weight 0) gets u = 0, so that it adds nothing (not even a NaN) to the
 * vector sums, as in the CUDA tile. */
static void mix_block_row(const mix_job *job, size_t lo, int i, int m,
                          const ghmix_bessel_result *k, const double *wt,
                          ghmix_mix_terms *acc, mix_work *w) {
  const ghmix_mix_const *c = &job->comp->c;
  ghmix_mix_row_result r;
  ghmix_mix_terms t;
  int j, ok;
  if (k != NULL)
    ok = ghmix_mix_row_step(c, w->q[i], w->b[i], &w->arg[i], k, &r, &t);
  else if (ghmix_mix_row_is_heavy(c, w->b[i]))
    ok = ghmix_mix_row_step_z(c, w->q[i], w->b[i], w->z + i, (size_t)m,
                              job->comp->g, &r, &t);
  else if (isinf(w->q[i]))
    /* Q overflowed: the row from |L^-1 (x - m)| (scaled) */
    ok = ghmix_mix_row_step_r(c, ghmix_mix_norm(job->d, w->z + i, (size_t)m),
                              w->b[i], &r, &t);
  else
    ok = ghmix_mix_row_step(c, w->q[i], w->b[i], NULL, NULL, &r, &t);
  if (wt != NULL)
    ok = ghmix_mix_terms_weight(&t, *wt);
  if (!ok)
    for (j = 0; j < job->d; j++)
      w->u[(size_t)j * m + i] = 0;
  if (job->rows)
    ghmix_mix_row_store(c, &r, lo + (size_t)i, job->n, job->rows);
  w->ok[i] = t.v[GHMIX_TERM_WEIGHT];
  w->w[i] = t.v[GHMIX_TERM_INV_Y];
  w->sw[i] = sqrt(w->w[i]);
  ghmix_mix_terms_add(acc, &t);
}

/* The rows [lo, hi) (hi - lo <= the block length) into the sums of the
 * slot. */
static void mix_block(const mix_job *job, int slot, size_t lo, size_t hi,
                      mix_work *w) {
  const int d = job->d, m = (int)(hi - lo);
  const double one = 1.0;
  double *s = job->slot_stats + (size_t)slot * job->nstats;
  double *terms = job->slot_terms + (size_t)slot * GHMIX_TERM_COUNT;
  double *sx = s + job->at.u, *sxw = s + job->at.inv_y_u;
  double *sxx = s + job->at.inv_y_uu;
  ghmix_mix_terms acc;
  int i, j, nt, next = 0;
  if (job->fq != NULL &&
      mix_forms_plain(&job->comp->c, job->fq + lo, job->fb + lo, m)) {
    mix_block_center(job, lo, m, w->u, NULL);
    memcpy(w->q, job->fq + lo, sizeof(double) * (size_t)m);
    memcpy(w->b, job->fb + lo, sizeof(double) * (size_t)m);
  } else {
    mix_block_forms(job, lo, m, w);
  }
  nt = mix_block_tabled(job, m, w);
  memcpy(acc.v, terms, sizeof acc.v);
  for (i = 0; i < m; i++) {
    const ghmix_bessel_result *k = NULL;
    if (next < nt && w->tabled[next] == i)
      k = &w->kq[next++];
    mix_block_row(job, lo, i, m, k,
                  job->weights != NULL ? job->weights + lo + i : NULL, &acc, w);
  }
  memcpy(terms, acc.v, sizeof acc.v);
  for (j = 0; j < d; j++) {
    double *uj = w->u + (size_t)j * m;
    sx[j] += mix_dot(w->ok, uj, m);
    sxw[j] += mix_dot(w->w, uj, m);
    MIX_SIMD
    for (i = 0; i < m; i++)
      uj[i] *= w->sw[i];
  }
  /* lower triangle of sum w u u' += (sqrt(w) U)' (sqrt(w) U) */
  if (d <= MIX_SMALL_D)
    mix_syrk_small(w->u, d, m, sxx);
  else
    dsyrk_("L", "T", &d, &m, &one, w->u, &m, &one, sxx, &d, 1, 1);
}

/* The range of Q over the rows [lo, hi) into the slot's qmin, qmax, and
 * the rows' Q and B into fq, fb where kept. */
static void mix_block_range(const mix_job *job, size_t lo, size_t hi, int slot,
                            mix_work *w) {
  int i, m = (int)(hi - lo);
  mix_block_forms(job, lo, m, w);
  if (job->fq != NULL) {
    memcpy(job->fq + lo, w->q, sizeof(double) * (size_t)m);
    memcpy(job->fb + lo, w->b, sizeof(double) * (size_t)m);
  }
  for (i = 0; i < m; i++) {
    double q = w->q[i];
    if (q < job->qmin[slot])
      job->qmin[slot] = q;
    if (q > job->qmax[slot])
      job->qmax[slot] = q;
  }
}

/* The buffers of `threads` threads; 0 when an allocation fails (what was
 * allocated is freed by mix_job_free). */
static int mix_work_alloc(mix_job *job, int threads) {
  const size_t rows = job->sl.block, per = rows * (2 * (size_t)job->d + 5);
  int t;
  job->work = calloc((size_t)threads, sizeof(mix_work));
  if (job->work == NULL)
    return 0;
  for (t = 0; t < threads; t++) {
    mix_work *w = &job->work[t];
    w->u = malloc(sizeof(double) * per);
    if (w->u == NULL)
      return 0;
    w->z = w->u + rows * (size_t)job->d;
    w->q = w->z + rows * (size_t)job->d;
    w->b = w->q + rows;
    w->w = w->b + rows;
    w->sw = w->w + rows;
    w->ok = w->sw + rows;
    w->arg = malloc(sizeof(ghmix_mix_row_arg_t) * rows);
    w->kq = malloc(sizeof(ghmix_bessel_result) * rows);
    w->tab_x = malloc(sizeof(double) * 2 * rows);
    w->tabled = malloc(sizeof(int) * rows);
    if (w->arg == NULL || w->kq == NULL || w->tab_x == NULL ||
        w->tabled == NULL)
      return 0;
    w->tab_t = w->tab_x + rows;
  }
  return 1;
}

static void mix_job_free(mix_job *job, int threads) {
  int t;
  if (job->work != NULL)
    for (t = 0; t < threads; t++) {
      mix_work *w = &job->work[t];
      free(w->u);
      free(w->arg);
      free(w->kq);
      free(w->tab_x);
      free(w->tabled);
    }
  free(job->work);
  free(job->slot_stats);
  free(job->slot_terms);
  free(job->qmin);
  free(job->fq);
  job->work = NULL;
  job->slot_stats = job->slot_terms = job->qmin = job->qmax = NULL;
  job->fq = job->fb = NULL;
}

/* mix_block and mix_block_range as ghmix_slot_block_fn. */
static void mix_slot_block(const void *job, int slot, size_t lo, size_t hi,
                           int thread) {
  const mix_job *mj = job;
  mix_block(mj, slot, lo, hi, &mj->work[thread]);
}

static void mix_slot_range(const void *job, int slot, size_t lo, size_t hi,
                           int thread) {
  const mix_job *mj = job;
  mix_block_range(mj, lo, hi, slot, &mj->work[thread]);
}

/* All rounds, into the sums or (range) into the Q ranges; 0, or 1 when
 * the user interrupted (*done: rows per slot completed). */
static int mix_rounds(const mix_job *job, int range, int threads,
                      size_t *done) {
  return ghmix_slots_run(&job->sl, MIX_ROUND,
                         range ? mix_slot_range : mix_slot_block, job, threads,
                         done);
}

/* Copies the lower triangle of the d x d block to the upper one. */
static void mix_symmetrize(double *sxx, int d) {
  int i, j;
  for (j = 0; j < d; j++)
    for (i = j + 1; i < d; i++)
      sxx[(size_t)i * d + j] = sxx[(size_t)j * d + i];
}

/* Whether tabulating K_q pays for this E-step: enough rows, and rows that
 * would not take the half-integer closed form (cheaper than the table). */
static int mix_table_pays(const ghmix_mix_const *c, size_t n) {
  double k = fabs(c->q) - 0.5;
  int halfint = k >= 0 && k <= 40 && k == floor(k);
  if (n < MIX_TABLE_MIN_ROWS || c->a_post <= 0 ||
      c->form != GHMIX_MIX_FORM_PLAIN)
    return 0;
  return (ghmix_mix_row_bessel_what(c) & GHMIX_BESSEL_GRAD) || !halfint;
}

/* The table of component c's K_q over the x that the Q ranges qlo[s *
 * stride], qhi[s * stride] of the slots s < nslots imply set up
 * (ghmix_bessel_table_init), its panels not yet filled: 1 if set up, 0 if
 * not (rows are then evaluated exactly). */
static int mix_table_init(const ghmix_mix_const *c, const double *qlo,
                          const double *qhi, int nslots, size_t stride,
                          ghmix_bessel_table *tab) {
  double qmin = INFINITY, qmax = -INFINITY;
  int slot;
  for (slot = 0; slot < nslots; slot++) {
    size_t at = (size_t)slot * stride;
    qmin = qlo[at] < qmin ? qlo[at] : qmin;
    qmax = qhi[at] > qmax ? qhi[at] : qmax;
  }
  if (!(c->b + qmin > 0) || !isfinite(qmax))
    return 0;
  return ghmix_bessel_table_init(c->q, ghmix_mix_row_bessel_what(c),
                                 c->sqrt_a * sqrt(c->b + qmin),
                                 c->sqrt_a * sqrt(c->b + qmax), tab);
}

/* The Q range pass (its forms kept where job->fq is allocated) and the
 * table set up (mix_table_init): 1 if set up, 0 if not, -1 when
 * interrupted. */
static int mix_table_prepare(const mix_job *job, int threads, size_t *done,
                             ghmix_bessel_table *tab) {
  int slot;
  for (slot = 0; slot < job->sl.nslots; slot++) {
    job->qmin[slot] = INFINITY;
    job->qmax[slot] = -INFINITY;
  }
  if (mix_rounds(job, 1, threads, done))
    return -1;
  return mix_table_init(&job->comp->c, job->qmin, job->qmax, job->sl.nslots, 1,
                        tab);
}

typedef struct {
  ghmix_bessel_table *tabs;
  const int *first; /* table k's panels are [first[k], first[k + 1]) */
  unsigned char *good;
} tables_job;

static void tables_panels(const void *job, size_t lo, size_t hi, int thread) {
  const tables_job *j = (const tables_job *)job;
  size_t i;
  (void)thread;
  for (i = lo; i < hi; i++) {
    int t = 0;
    while ((int)i >= j->first[t + 1])
      t++;
    j->good[i] = (unsigned char)ghmix_bessel_table_panel(&j->tabs[t],
                                                         (int)i - j->first[t]);
  }
}

/* The panels of the tables tabs[0, count) (each set up by
 * ghmix_bessel_table_init), all of them shared out among the threads
 * (each panel is independent of the others: the values do not depend on
 * the threads); ok[k] = 1 when every panel of table k was verified, else
 * 0 (it must not be used then). */
static void mix_tables_fill(ghmix_bessel_table *tabs, const int *use, int count,
                            int threads, int *ok) {
  int k, total = 0, i;
  int first[GHMIX_MAX_COMPONENTS + 1];
  tables_job j;
  for (k = 0; k < count; k++) {
    first[k] = total;
    total += use[k] ? tabs[k].npanel : 0;
    ok[k] = use[k];
  }
  first[count] = total;
  j.tabs = tabs;
  j.first = first;
  j.good = malloc(total > 0 ? (size_t)total : 1);
  if (j.good == NULL) { /* on this thread, panel after panel */
    for (k = 0; k < count; k++)
      for (i = first[k]; i < first[k + 1]; i++)
        ok[k] &= ghmix_bessel_table_panel(&tabs[k], i - first[k]) != 0;
    return;
  }
  ghmix_parallel_for(0, (size_t)total, 1, total < 2 ? 1 : threads,
                     tables_panels, &j);
  for (k = 0; k < count; k++)
    for (i = first[k]; i < first[k + 1]; i++)
      ok[k] &= j.good[i];
  free(j.good);
}

/* The threads for n rows of d, each costing `weight` rows of one
 * component tabulated: at most one per slot, one for small jobs (a row
 * costs O(d^2) flops once the BLAS path is taken). */
static int mix_threads(const mix_job *job, int threads, size_t weight) {
  threads = ghmix_slots_threads(&job->sl, threads);
  if (job->n * weight * (size_t)(job->d > MIX_SMALL_D ? job->d : 1) <
      MIX_PARALLEL_MIN)
    threads = 1;
  return threads;
}

/* Sets up the job for n rows (n > 0), each of `weight` (mix_threads),
 * and allocates every buffer; 0 when an allocation fails (nothing left
 * allocated then). */
static int mix_job_init(mix_job *job, const double *x, size_t n, size_t ldx,
                        const ghmix_mix_model *model, double *rows,
                        int *threads, int want_table, size_t weight) {
  job->x = x;
  job->n = n;
  job->ldx = ldx;
  job->d = model->shape.d;
  job->comp = &model->comp[0];
  job->weights =
      (model->shape.what & GHMIX_ESTEP_WEIGHTS) ? model->weights : NULL;
  job->rows = rows;
  job->nstats = ghmix_estep_nstats(&model->shape);
  mix_offsets_init(&model->shape, &job->at);
  job->sl = ghmix_slots_make(n, mix_block_rows(job->d, n), MIX_SLOTS);
  *threads = mix_threads(job, *threads, weight);
  job->slot_stats =
      calloc((size_t)job->sl.nslots * job->nstats, sizeof(double));
  job->slot_terms =
      calloc((size_t)job->sl.nslots * GHMIX_TERM_COUNT, sizeof(double));
  if (want_table) {
    job->qmin = malloc(sizeof(double) * 2 * (size_t)job->sl.nslots);
    /* (without room for the forms, the main pass computes them again) */
    job->fq = malloc(sizeof(double) * 2 * n);
    if (job->fq != NULL)
      job->fb = job->fq + n;
  }
  if (job->slot_stats == NULL || job->slot_terms == NULL ||
      (want_table && job->qmin == NULL) || !mix_work_alloc(job, *threads)) {
    mix_job_free(job, *threads);
    return 0;
  }
  if (want_table)
    job->qmax = job->qmin + job->sl.nslots;
  return 1;
}

/* The rounds of the E-step (after the range pass and the table, where
 * they pay); 0, or 1 when interrupted. */
static int mix_run(mix_job *job, int threads, int want_table, size_t *done) {
  ghmix_bessel_table tab;
  int built = 0, blas_threads, stopped, use = 1;
  /* BLAS on one thread (large d): several of ours must not each start a
   * pool, and on one of ours OpenBLAS's own threads change its sums' bits
   * (1 and 2 threads would then differ) */
  blas_threads = job->d > MIX_SMALL_D ? ghmix_blas_threads_single() : 0;
  stopped = 0;
  if (want_table) {
    built = mix_table_prepare(job, threads, done, &tab);
    stopped = built < 0;
    if (built > 0) {
      mix_tables_fill(&tab, &use, 1, threads, &built);
      if (!built)
        ghmix_bessel_table_free(&tab);
    }
    if (built > 0)
      job->tab = &tab; /* read-only from here on */
  }
  if (!stopped)
    stopped = mix_rounds(job, 0, threads, done);
  ghmix_blas_threads_restore(blas_threads);
  job->tab = NULL;
  if (built > 0)
    ghmix_bessel_table_free(&tab);
  return stopped;
}

ghmix_status ghmix_mix_estep_cpu(const double *x, size_t n, size_t ldx, int d,
                                 const ghmix_mix_model *model, double *stats,
                                 double *rows, int threads, ghmix_error *err) {
  mix_job job = {0};
  size_t k, done = 0;
  int slot, want_table;
  ghmix_status st = ghmix_mix_model_check(model, d, err);
  if (st != GHMIX_OK)
    return st;
  ghmix_error_clear(err);
  memset(stats, 0, sizeof(double) * ghmix_estep_nstats(&model->shape));
  if (n == 0)
    return GHMIX_OK;
  want_table = mix_table_pays(&model->comp[0].c, n);
  if (!mix_job_init(&job, x, n, ldx, model, rows, &threads, want_table, 1))
    return ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                           "cannot allocate the E-step work buffers");
  if (mix_run(&job, threads, want_table, &done)) {
    mix_job_free(&job, threads);
    return ghmix_interrupted(err, done * (size_t)job.sl.nslots, n);
  }
  for (slot = 0; slot < job.sl.nslots; slot++) {
    double *s = job.slot_stats + (size_t)slot * job.nstats;
    const double *t = job.slot_terms + (size_t)slot * GHMIX_TERM_COUNT;
    int id;
    for (id = 0; id < GHMIX_STAT_NSCALAR; id++)
      s[job.at.scalar[id]] =
          t[job.weights != NULL ? ghmix_mix_term_of_weighted((ghmix_stat_id)id)
                                : ghmix_mix_term_of((ghmix_stat_id)id)];
    for (k = 0; k < job.nstats; k++)
      stats[k] += s[k];
  }
  mix_job_free(&job, threads);
  mix_symmetrize(stats + job.at.inv_y_uu, d);
  return GHMIX_OK;
}

/* ------------------------------------------------------------------------
 * The E-step of G >= 1 components (ghmix_mix_estep_mixture_cpu): the same
 * slots, blocks, rounds and per-thread buffers as above (base), with each
 * component's forms computed in turn into the shared buffers; each row's
 * components then give its tau and terms (ghmix_mixg_row, mixture_g.h),
 * and each component's vector sums are taken with the weights v_k. */

/* A thread's extra buffers for one block of m <= block rows: the results
 * (row i, component k at i G + k), the memberships, and per component (k m
 * + i) v = w tau and v E[1/Y | x]. */
typedef struct {
  ghmix_mix_row_result *res;
  double *tau, *v, *vw;
} mixg_work;

/* slot_terms: per slot the whole model's terms (ghmix_mixg_global), then
 * each component's (ghmix_mix_terms), each summed in row order. */
typedef struct {
  mix_job base;
  int G, what;
  const ghmix_mix_component *comps;
  const double *weights, *log_prop;
  const ghmix_bessel_table **tab; /* G: NULL where K_q is evaluated */
  size_t glob[GHMIX_STAT_TAU];    /* offsets of ROWS, WEIGHT, LOGLIK, BAD */
  mix_offsets *at;                /* G */
  size_t nterms;
  double *slot_terms, *rows;
  ghmix_mixg_rows mix; /* (for ghmix_mixg_block_terms) */
  mixg_work *gw;
  /* the range pass of the components whose table pays (ranged[k]): their
   * rows' Q and B (component k's at fq + k n, fb + k n), kept for the main
   * pass, and per slot s their range at qlo[s G + k], qhi[s G + k] */
  int ranged[GHMIX_MAX_COMPONENTS];
  double *fq, *fb, *qlo, *qhi;
} mixg_job;

/* Component k's results for the m rows of the block, with Q, B in q, b
 * and z = L^-1 (x - m) in w (read only for rows of a huge Q or B) (res[i G + k]
 * for row i): K_q from the component's table where it applies (all such rows'
 * table values first, ghmix_bessel_table_eval_n), else evaluated. */
static void mixg_component_rows(const mixg_job *job, int k, int m,
                                const double *q, const double *b, mix_work *w,
                                ghmix_mix_row_result *res) {
  const ghmix_mix_const *c = &job->comps[k].c;
  const ghmix_bessel_table *tab = job->tab[k];
  const int G = job->G;
  int i, j, nt = 0;
  for (i = 0; i < m; i++) {
    ghmix_mix_row_result *r = &res[(size_t)i * G + k];
    if (ghmix_mix_row_is_heavy(c, b[i]))
      ghmix_mix_row_z(c, q[i], b[i], w->z + i, (size_t)m, job->comps[k].g, r);
    else if (isinf(q[i]))
      ghmix_mix_row_r(c, ghmix_mix_norm(job->base.d, w->z + i, (size_t)m), b[i],
                      r);
    else if (tab != NULL && !isnan(b[i]) &&
             ghmix_mix_row_arg(c, q[i], &w->arg[i])) {
      w->tab_x[nt] = w->arg[i].x;
      w->tab_t[nt] = w->arg[i].ls + 2 * c->log_sqrt_a;
      w->tabled[nt++] = i;
    } else {
      ghmix_mix_row(c, q[i], b[i], r);
    }
  }
  if (nt == 0)
    return;
  ghmix_bessel_table_eval_n(tab, nt, w->tab_x, w->tab_t, w->kq);
  for (j = 0; j < nt; j++) {
    i = w->tabled[j];
    ghmix_mix_row_done(c, b[i], &w->arg[i], &w->kq[j], &res[(size_t)i * G + k]);
  }
}

/* Component k's vector sums over the block: u = x - m_k (0 where v = 0),
 * sum v u, sum v E[1/Y] u and sum v E[1/Y] u u', as mix_block takes
 * them. */
static void mixg_block_sums(const mixg_job *job, int k, double *s, size_t lo,
                            int m, mix_work *w, const mixg_work *g) {
  const int d = job->base.d;
  const double one = 1.0, *v = g->v + (size_t)k * m,
               *vw = g->vw + (size_t)k * m;
  const mix_offsets *at = &job->at[k];
  int i, j;
  for (i = 0; i < m; i++)
    w->sw[i] = sqrt(vw[i]);
  for (j = 0; j < d; j++) {
    const double *xj = job->base.x + (size_t)j * job->base.ldx + lo;
    const double cj = job->comps[k].center[j];
    double *uj = w->u + (size_t)j * m;
    for (i = 0; i < m; i++)
      uj[i] = v[i] > 0 ? xj[i] - cj : 0.0;
    s[at->u + j] += mix_dot(v, uj, m);
    s[at->inv_y_u + j] += mix_dot(vw, uj, m);
    MIX_SIMD
    for (i = 0; i < m; i++)
      uj[i] *= w->sw[i];
  }
  if (d <= MIX_SMALL_D)
    mix_syrk_small(w->u, d, m, s + at->inv_y_uu);
  else
    dsyrk_("L", "T", &d, &m, &one, w->u, &m, &one, s + at->inv_y_uu, &d, 1, 1);
}

/* Whether component k's Q and B of the rows [lo, lo + m) are kept from
 * the range pass and none of them needs z (a Q that overflowed, a heavy
 * B): the main pass then skips the forms. */
static int mixg_forms_kept(const mixg_job *job, int k, size_t lo, int m) {
  return job->ranged[k] &&
         mix_forms_plain(&job->comps[k].c,
                         job->fq + (size_t)k * job->base.n + lo,
                         job->fb + (size_t)k * job->base.n + lo, m);
}

/* The rows [lo, hi) into the sums of the slot. */
static void mixg_block(const mixg_job *job, int slot, size_t lo, size_t hi,
                       mix_work *w, mixg_work *g) {
  const int m = (int)(hi - lo), G = job->G;
  double *s = job->base.slot_stats + (size_t)slot * job->base.nstats;
  double *terms = job->slot_terms + (size_t)slot * job->nterms;
  mix_job jk = job->base;
  int k;
  for (k = 0; k < G; k++) {
    const double *q = w->q, *b = w->b;
    if (mixg_forms_kept(job, k, lo, m)) {
      q = job->fq + (size_t)k * job->base.n + lo;
      b = job->fb + (size_t)k * job->base.n + lo;
    } else {
      jk.comp = &job->comps[k];
      mix_block_forms(&jk, lo, m, w);
    }
    mixg_component_rows(job, k, m, q, b, w, g->res);
  }
  ghmix_mixg_block_terms(&job->mix, lo, m, g->res, g->tau, terms, g->v, g->vw);
  for (k = 0; k < G; k++)
    mixg_block_sums(job, k, s, lo, m, w, g);
}

/* mixg_block as a ghmix_slot_block_fn. */
static void mixg_slot_block(const void *job, int slot, size_t lo, size_t hi,
                            int thread) {
  const mixg_job *gj = job;
  mixg_block(gj, slot, lo, hi, &gj->base.work[thread], &gj->gw[thread]);
}

/* The range pass over the rows [lo, hi) of the slot: the forms of every
 * component in `ranged`, kept, and their Q range. */
static void mixg_range_block(const mixg_job *job, int slot, size_t lo,
                             size_t hi, mix_work *w) {
  const int m = (int)(hi - lo), G = job->G;
  mix_job jk = job->base;
  int i, k;
  for (k = 0; k < G; k++) {
    double *q, *b, *qlo = &job->qlo[(size_t)slot * G + k],
                   *qhi = &job->qhi[(size_t)slot * G + k];
    if (!job->ranged[k])
      continue;
    jk.comp = &job->comps[k];
    mix_block_forms(&jk, lo, m, w);
    q = job->fq + (size_t)k * job->base.n + lo;
    b = job->fb + (size_t)k * job->base.n + lo;
    memcpy(q, w->q, sizeof(double) * (size_t)m);
    memcpy(b, w->b, sizeof(double) * (size_t)m);
    for (i = 0; i < m; i++) {
      if (q[i] < *qlo)
        *qlo = q[i];
      if (q[i] > *qhi)
        *qhi = q[i];
    }
  }
}

static void mixg_slot_range(const void *job, int slot, size_t lo, size_t hi,
                            int thread) {
  const mixg_job *gj = job;
  mixg_range_block(gj, slot, lo, hi, &gj->base.work[thread]);
}

/* The one range pass of the components whose table pays (their forms kept
 * for the main pass); 0, 1 when interrupted, -1 when out of memory. */
static int mixg_range_pass(mixg_job *job, int threads, size_t *done) {
  const size_t n = job->base.n, G = (size_t)job->G,
               slots = (size_t)job->base.sl.nslots;
  size_t i;
  job->fq = malloc(sizeof(double) * 2 * n * G);
  job->qlo = malloc(sizeof(double) * 2 * slots * G);
  if (job->fq == NULL || job->qlo == NULL)
    return -1;
  job->fb = job->fq + n * G;
  job->qhi = job->qlo + slots * G;
  for (i = 0; i < slots * G; i++) {
    job->qlo[i] = INFINITY;
    job->qhi[i] = -INFINITY;
  }
  return ghmix_slots_run(&job->base.sl, MIX_ROUND, mixg_slot_range, job,
                         threads, done);
}

/* The tables of K_q of the components where they pay (tabs[k] filled and
 * job->tab[k] set where built): one range pass for all of them, then all
 * the tables' panels at once (mix_tables_fill); 0, 1 when interrupted,
 * -1 when out of memory. */
static int mixg_tables(mixg_job *job, int threads, ghmix_bessel_table *tabs,
                       size_t *done) {
  int k, any = 0, stopped;
  int use[GHMIX_MAX_COMPONENTS], ok[GHMIX_MAX_COMPONENTS];
  for (k = 0; k < job->G; k++) {
    job->ranged[k] = mix_table_pays(&job->comps[k].c, job->base.n);
    any |= job->ranged[k];
  }
  if (!any)
    return 0;
  stopped = mixg_range_pass(job, threads, done);
  if (stopped < 0) {
    for (k = 0; k < job->G; k++)
      job->ranged[k] = 0;
    return -1;
  }
  if (stopped)
    return 1;
  for (k = 0; k < job->G; k++)
    use[k] = job->ranged[k] &&
             mix_table_init(&job->comps[k].c, job->qlo + k, job->qhi + k,
                            job->base.sl.nslots, (size_t)job->G, &tabs[k]) > 0;
  mix_tables_fill(tabs, use, job->G, threads, ok);
  for (k = 0; k < job->G; k++) {
    if (ok[k])
      job->tab[k] = &tabs[k];
    else if (use[k])
      ghmix_bessel_table_free(&tabs[k]);
  }
  return 0;
}

/* The tables and all rounds; 0, or 1 when interrupted. */
static int mixg_run(mixg_job *job, int threads, ghmix_bessel_table *tabs,
                    size_t *done) {
  int blas_threads =
      job->base.d > MIX_SMALL_D ? ghmix_blas_threads_single() : 0;
  int stopped = mixg_tables(job, threads, tabs, done);
  if (stopped < 0) /* no memory for the range pass: every row evaluated */
    stopped = 0;
  if (!stopped)
    stopped = ghmix_slots_run(&job->base.sl, MIX_ROUND, mixg_slot_block, job,
                              threads, done);
  ghmix_blas_threads_restore(blas_threads);
  return stopped;
}

static void mixg_job_free(mixg_job *job, int threads) {
  int t;
  if (job->gw != NULL)
    for (t = 0; t < threads; t++)
      free(job->gw[t].res);
  free(job->gw);
  free(job->slot_terms);
  free(job->at);
  free((void *)job->tab);
  free((void *)job->log_prop);
  free(job->fq);
  free(job->qlo);
  mix_job_free(&job->base, threads);
}

/* The extra buffers of the job (base already set up); 0 when an
 * allocation fails. */
static int mixg_job_alloc(mixg_job *job, const ghmix_mix_model *model,
                          int threads) {
  const size_t G = (size_t)job->G, m = job->base.sl.block;
  double *lp = malloc(sizeof(double) * G);
  int k, t;
  job->log_prop = lp;
  job->tab = calloc(G, sizeof(ghmix_bessel_table *));
  job->at = malloc(sizeof(mix_offsets) * G);
  job->slot_terms =
      calloc((size_t)job->base.sl.nslots * job->nterms, sizeof(double));
  job->gw = calloc((size_t)threads, sizeof(mixg_work));
  if (lp == NULL || job->tab == NULL || job->at == NULL ||
      job->slot_terms == NULL || job->gw == NULL)
    return 0;
  for (k = 0; k < job->G; k++) {
    lp[k] = model->comp[k].log_prop;
    job->at[k].u = ghmix_estep_stat(&model->shape, k, GHMIX_STAT_U).offset;
    job->at[k].inv_y_u =
        ghmix_estep_stat(&model->shape, k, GHMIX_STAT_INV_Y_U).offset;
    job->at[k].inv_y_uu =
        ghmix_estep_stat(&model->shape, k, GHMIX_STAT_INV_Y_UU).offset;
    for (t = GHMIX_STAT_TAU; t < GHMIX_STAT_NSCALAR; t++)
      job->at[k].scalar[t] =
          ghmix_estep_stat(&model->shape, k, (ghmix_stat_id)t).offset;
  }
  for (t = 0; t < threads; t++) {
    mixg_work *g = &job->gw[t];
    g->res = malloc(sizeof(ghmix_mix_row_result) * m * G +
                    sizeof(double) * 3 * m * G);
    if (g->res == NULL)
      return 0;
    g->tau = (double *)(g->res + m * G);
    g->v = g->tau + m * G;
    g->vw = g->v + m * G;
  }
  return 1;
}

/* Sets up the job; 0 when an allocation fails (nothing left allocated). */
static int mixg_job_init(mixg_job *job, const double *x, size_t n, size_t ldx,
                         const ghmix_mix_model *model, double *rows,
                         int *threads) {
  int k, all_tables = 1;
  for (k = 0; k < model->shape.components; k++)
    all_tables &= mix_table_pays(&model->comp[k].c, n);
  /* (no table in the base job: the range pass is mixg_range_pass) */
  if (!mix_job_init(&job->base, x, n, ldx, model, NULL, threads, 0,
                    (size_t)model->shape.components *
                        (all_tables ? 1 : MIX_EXACT_ROW)))
    return 0;
  job->G = model->shape.components;
  job->what = model->shape.what;
  job->comps = model->comp;
  job->weights = model->weights;
  job->rows = rows;
  job->nterms = GHMIX_STAT_TAU + (size_t)job->G * GHMIX_TERM_COUNT;
  for (k = 0; k < GHMIX_STAT_TAU; k++)
    job->glob[k] = ghmix_estep_stat(&model->shape, 0, (ghmix_stat_id)k).offset;
  if (!mixg_job_alloc(job, model, *threads)) {
    mixg_job_free(job, *threads);
    return 0;
  }
  job->mix = ghmix_mixg_rows_make(job->G, job->what, n, job->log_prop,
                                  job->weights, rows);
  return 1;
}

/* The slots' scalar sums into their statistics, then the slots added in
 * order (as ghmix_mix_estep_cpu does), and each sum w u u' symmetrised. */
static void mixg_reduce(const mixg_job *job, double *stats) {
  int slot, k, id;
  size_t j;
  for (slot = 0; slot < job->base.sl.nslots; slot++) {
    double *s = job->base.slot_stats + (size_t)slot * job->base.nstats;
    const double *t = job->slot_terms + (size_t)slot * job->nterms;
    ghmix_mixg_global g;
    memcpy(&g, t, sizeof g);
    for (id = 0; id < GHMIX_STAT_TAU; id++)
      s[job->glob[id]] = ghmix_mixg_global_term(&g, (ghmix_stat_id)id);
    for (k = 0; k < job->G; k++) {
      const double *tk = t + GHMIX_STAT_TAU + (size_t)k * GHMIX_TERM_COUNT;
      for (id = GHMIX_STAT_TAU; id < GHMIX_STAT_NSCALAR; id++)
        s[job->at[k].scalar[id]] = tk[ghmix_mix_term_of((ghmix_stat_id)id)];
    }
    for (j = 0; j < job->base.nstats; j++)
      stats[j] += s[j];
  }
  for (k = 0; k < job->G; k++)
    mix_symmetrize(stats + job->at[k].inv_y_uu, job->base.d);
}

ghmix_status ghmix_mix_estep_mixture_cpu(const double *x, size_t n, size_t ldx,
                                         int d, const ghmix_mix_model *model,
                                         double *stats, double *rows,
                                         int threads, ghmix_error *err) {
  mixg_job job = {0};
  ghmix_bessel_table tabs[GHMIX_MAX_COMPONENTS];
  size_t done = 0;
  int k, stopped;
  ghmix_status st = ghmix_mix_model_check_g(model, d, err);
  if (st != GHMIX_OK)
    return st;
  ghmix_error_clear(err);
  memset(stats, 0, sizeof(double) * ghmix_estep_nstats(&model->shape));
  if (n == 0)
    return GHMIX_OK;
  if (!mixg_job_init(&job, x, n, ldx, model, rows, &threads))
    return ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                           "cannot allocate the E-step work buffers");
  stopped = mixg_run(&job, threads, tabs, &done);
  if (!stopped)
    mixg_reduce(&job, stats);
  for (k = 0; k < job.G; k++)
    if (job.tab[k] != NULL)
      ghmix_bessel_table_free(&tabs[k]);
  mixg_job_free(&job, threads);
  return stopped ? ghmix_interrupted(err, done * (size_t)job.base.sl.nslots, n)
                 : GHMIX_OK;
}
