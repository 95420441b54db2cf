#include "rdf_readers/xml_base_marks.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* What one mark stands for. */
typedef struct {
  size_t query;     /* offset of the query in the arena */
  size_t query_len; /* without '?' */
  bool has_query;
  bool added_slash; /* the base had an empty path: "/" went in front */
} Mark;

struct LwXmlBaseMarks {
  char prefix[32]; /* "{lodwash-q<NONCE>-" */
  size_t prefix_len;
  /* the tokenizer adds marks in the read-ahead thread while the reader's
   * thread reads them (rdf_readers/xml_feed_thread.h) */
  pthread_mutex_t lock;
  LwBuf marks; /* Mark[] */
  LwBuf arena; /* the queries */
};

LwXmlBaseMarks *lw_xml_base_marks_new(void)
{
  LwXmlBaseMarks *m = calloc(1, sizeof(*m));
  if (!m) {
    return NULL;
  }
  uint64_t nonce = 0;
  if (getrandom(&nonce, sizeof(nonce), GRND_NONBLOCK) != (ssize_t)sizeof(nonce)) {
    nonce = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)m ^ (uint64_t)clock();
  }
  m->prefix_len = (size_t)snprintf(m->prefix, sizeof(m->prefix), "{lodwash-q%016" PRIx64 "-",
                                   nonce);
  pthread_mutex_init(&m->lock, NULL);
  return m;
}

void lw_xml_base_marks_free(LwXmlBaseMarks *m)
{
  if (m) {
    lw_buf_free(&m->marks);
    lw_buf_free(&m->arena);
    pthread_mutex_destroy(&m->lock);
    free(m);
  }
}

static size_t count(const LwXmlBaseMarks *m)
{
  return m->marks.len / sizeof(Mark);
}

static Mark mark_at(const LwXmlBaseMarks *m, size_t k)
{
  Mark mk;
  memcpy(&mk, m->marks.data + k * sizeof(Mark), sizeof(mk));
  return mk;
}

/* The number of the mark for this query and path, a new one if need be;
 * count(m) when none can be had. */
static size_t find_or_add(LwXmlBaseMarks *m, LwSlice query, bool added_slash)
{
  size_t n = count(m);
  for (size_t k = 0; k < n; ++k) {
    Mark mk = mark_at(m, k);
    if (mk.has_query == (query.ptr != NULL) && mk.added_slash == added_slash &&
        mk.query_len == query.len &&
        (!query.len || !memcmp(m->arena.data + mk.query, query.ptr, query.len))) {
      return k;
    }
  }
  if (n >= LW_XML_BASE_MARKS_MAX) {
    return n;
  }
  Mark mk = {m->arena.len, query.len, query.ptr != NULL, added_slash};
  size_t arena_len = m->arena.len;
  if ((query.len && lw_buf_append(&m->arena, query.ptr, query.len) != LW_OK) ||
      lw_buf_append(&m->marks, &mk, sizeof(mk)) != LW_OK) {
    m->arena.len = arena_len;
    return n + 1; /* out of memory: no mark */
  }
  return n;
}

bool lw_xml_base_mark(LwXmlBaseMarks *m, const char *base, LwBuf *out)
{
  LwUriParts p;
  lw_uri_split(base, &p);
  bool empty_path = p.path.len == 0;
  if (!p.scheme.ptr || (!p.query.ptr && !(empty_path && p.authority.ptr))) {
    return false;
  }
  pthread_mutex_lock(&m->lock);
  size_t k = find_or_add(m, p.query, empty_path);
  bool marked = k < count(m);
  pthread_mutex_unlock(&m->lock);
  if (!marked) {
    return false;
  }
  /* everything before the query, a "/" for an empty path, the mark */
  size_t front = (size_t)(p.path.ptr + p.path.len - base);
  size_t start = out->len;
  if (lw_buf_append(out, base, front) != LW_OK ||
      (empty_path && lw_buf_append_char(out, '/') != LW_OK) ||
      lw_buf_append(out, m->prefix, m->prefix_len) != LW_OK ||
      lw_buf_appendf(out, "%zu}", k) != LW_OK) {
    out->len = start;
    return false;
  }
  return true;
}

/* unmark with the marks locked: at is the mark's '{' in iri. */
static const char *unmark_at(const LwXmlBaseMarks *m, const char *iri, const char *at,
                             size_t *len, LwBuf *out)
{
  const char *end = iri + *len;
  size_t k = 0;
  const char *digit = at + m->prefix_len;
  while (digit < end && *digit >= '0' && *digit <= '9' && k < LW_XML_BASE_MARKS_MAX) {
    k = k * 10 + (size_t)(*digit++ - '0');
  }
  if (digit >= end || *digit != '}' || k >= count(m)) {
    return iri;
  }
  Mark mk = mark_at(m, (size_t)k);
  const char *rest = digit + 1; /* '?' of the reference's query, '#' or the end */
  lw_buf_reset(out);
  size_t front = (size_t)(at - iri) - (mk.added_slash ? 1 : 0);
  if (lw_buf_append(out, iri, front) != LW_OK ||
      (*rest != '?' && mk.has_query &&
       (lw_buf_append_char(out, '?') != LW_OK ||
        lw_buf_append(out, m->arena.data + mk.query, mk.query_len) != LW_OK)) ||
      lw_buf_append(out, rest, (size_t)(end - rest)) != LW_OK) {
    return NULL;
  }
  *len = out->len;
  return out->data;
}

const char *lw_xml_base_unmark(LwXmlBaseMarks *m, const char *iri, size_t *len,
                               LwBuf *out)
{
  /* no '{' (nearly every IRI: it is no IRI character) or no mark of ours:
   * nothing shared is read */
  const char *at = memchr(iri, '{', *len);
  const char *end = iri + *len;
  while (at && ((size_t)(end - at) <= m->prefix_len || memcmp(at, m->prefix, m->prefix_len))) {
    at = memchr(at + 1, '{', (size_t)(end - at - 1));
  }
  if (!at) {
    return iri;
  }
  pthread_mutex_lock(&m->lock);
  const char *r = unmark_at(m, iri, at, len, out);
  pthread_mutex_unlock(&m->lock);
  return r;
}
