#include "scheduler/void.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rdf_readers/rdf_readers.h"
#include "base/base.h"
#include "config/config.h"

#define RDF_NS "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#define VOID_NS "http://rdfs.org/ns/void#"
#define DCTERMS_NS "http://purl.org/dc/terms/"
#define SPDX_NS "http://spdx.org/rdf/terms#"

/* How often a Turtle document is read again without its offending line. */
#define MAX_RETRIES 8
/* Statements kept (only the few predicates read here are kept at all). */
#define MAX_KEPT 200000u

typedef enum {
  P_TYPE,
  P_MODIFIED,
  P_FEATURE,
  P_DUMP,
  P_SUBSET,
  P_CHECKSUM,
  P_ALGORITHM,
  P_CHECKSUM_VALUE,
  P_OTHER
} Pred;

typedef struct {
  char *s; /* IRI, or "_:label" */
  Pred p;
  char *o; /* IRI, "_:label", or a literal's lexical form */
  bool o_literal;
} Triple;

/* The statements of one reading that matter here. */
typedef struct {
  Triple *t;
  size_t n, cap;
  bool oom;
} Collector;


static Pred pred_of(const char *iri)
{
  static const struct {
    const char *iri;
    Pred p;
  } table[] = {
    {RDF_NS "type", P_TYPE},
    {DCTERMS_NS "modified", P_MODIFIED},
    {VOID_NS "feature", P_FEATURE},
    {VOID_NS "dataDump", P_DUMP},
    {VOID_NS "subset", P_SUBSET},
    {SPDX_NS "checksum", P_CHECKSUM},
    {SPDX_NS "algorithm", P_ALGORITHM},
    {SPDX_NS "checksumValue", P_CHECKSUM_VALUE},
  };
  for (size_t i = 0; i < sizeof(table) / sizeof(*table); ++i) {
    if (!strcmp(iri, table[i].iri)) {
      return table[i].p;
    }
  }
  return P_OTHER;
}

static char *term_key(const LwTerm *t)
{
  if (t->type == LW_TERM_BLANK) {
    size_t n = t->len + 3;
    char *k = malloc(n);
    if (k) {
      snprintf(k, n, "_:%s", t->value);
    }
    return k;
  }
  return strdup(t->value);
}

static LwStatus collect(void *handle, const LwQuad *q)
{
  Collector *c = handle;
  if (q->predicate.type != LW_TERM_IRI) {
    return LW_OK;
  }
  Pred p = pred_of(q->predicate.value);
  if (p == P_OTHER) {
    return LW_OK;
  }
  if (p == P_TYPE && (q->object.type != LW_TERM_IRI ||
                      (strcmp(q->object.value, VOID_NS "Dataset") &&
                       strcmp(q->object.value, VOID_NS "Linkset") &&
                       strcmp(q->object.value, VOID_NS "DatasetDescription")))) {
    return LW_OK;
  }
  if (c->n == MAX_KEPT) {
    return LW_ERR_LIMIT;
  }
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 64;
    Triple *t = realloc(c->t, cap * sizeof(*t));
    if (!t) {
      c->oom = true;
      return LW_ERR_NOMEM;
    }
    c->t = t;
    c->cap = cap;
  }
  Triple t = {term_key(&q->subject), p, term_key(&q->object),
              q->object.type == LW_TERM_LITERAL};
  if (!t.s || !t.o) {
    free(t.s);
    free(t.o);
    c->oom = true;
    return LW_ERR_NOMEM;
  }
  c->t[c->n++] = t;
  return LW_OK;
}

static void collector_clear(Collector *c)
{
  for (size_t i = 0; i < c->n; ++i) {
    free(c->t[i].s);
    free(c->t[i].o);
  }
  free(c->t);
  memset(c, 0, sizeof(*c));
}

/* One reading of the whole document. */
typedef struct {
  LwFormat format;
  LwStatus status;
  Collector kept;
  LwSyntaxLog errors;
  LwReadStats stats;
  LwError err;
} Reading;

static void reading_clear(Reading *r)
{
  collector_clear(&r->kept);
  memset(r, 0, sizeof(*r));
}

/* serd 0.30 in lax mode never returns from a Turtle document that ends
 * inside an IRI ("<a" and nothing after): it reports an error for every
 * byte it imagines past the end. Such a document is cut before that '<'
 * (the statement was incomplete anyway). A small lexer follows comments,
 * strings and IRIs to know whether the end falls inside an IRI. */
static size_t turtle_safe_len(const char *d, size_t len, bool *cut)
{
  enum { NORMAL, COMMENT, STRING, IRI } state = NORMAL;
  char quote = 0;
  bool long_string = false;
  size_t iri_start = 0;
  *cut = false;
  for (size_t i = 0; i < len; ++i) {
    char c = d[i];
    switch (state) {
    case NORMAL:
      if (c == '#') {
        state = COMMENT;
      } else if (c == '<') {
        state = IRI;
        iri_start = i;
      } else if (c == '"' || c == '\'') {
        state = STRING;
        quote = c;
        long_string = i + 2 < len && d[i + 1] == c && d[i + 2] == c;
        i += long_string ? 2 : 0;
      }
      break;
    case COMMENT:
      state = c == '\n' || c == '\r' ? NORMAL : COMMENT;
      break;
    case STRING:
      if (c == '\\') {
        ++i;
      } else if (!long_string && (c == quote || c == '\n' || c == '\r')) {
        state = NORMAL;
      } else if (long_string && c == quote && i + 2 < len && d[i + 1] == c &&
                 d[i + 2] == c) {
        state = NORMAL;
        i += 2;
      }
      break;
    case IRI:
      state = c == '>' ? NORMAL : IRI;
      break;
    }
  }
  if (state == IRI) {
    *cut = true;
    return iri_start;
  }
  return len;
}

static void read_document(const char *data, size_t len, LwFormat format, const char *url,
                          Reading *r)
{
  memset(r, 0, sizeof(*r));
  r->format = format;
  lw_error_clear(&r->err);
  bool cut = false;
  if (format == LW_FORMAT_TURTLE) {
    len = turtle_safe_len(data, len, &cut);
  }
  if (cut) {
    lw_syntax_log_add(&r->errors, 0, 0, "the document ends inside an IRI; read up to it");
  }
  LwReadOptions options = {.format = format,
                           .base_iri = url,
                           .on_quad = collect,
                           .quad_handle = &r->kept,
                           .on_error = lw_syntax_log_add,
                           .error_handle = &r->errors};
  r->status = lw_rdf_read_memory(data, len, &options, &r->stats, &r->err);
  if (r->kept.oom) {
    r->status = lw_error_set(&r->err, LW_ERR_NOMEM, "out of memory");
  }
}

/* ---- result building ---- */

static bool add_string(char ***list, size_t *n, const char *s)
{
  for (size_t i = 0; i < *n; ++i) {
    if (!strcmp((*list)[i], s)) {
      return true;
    }
  }
  char **grown = realloc(*list, (*n + 1) * sizeof(**list));
  if (!grown) {
    return false;
  }
  *list = grown;
  if (!(grown[*n] = strdup(s))) {
    return false;
  }
  ++*n;
  return true;
}

static void warn(LwVoid *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(LwVoid *v, const char *fmt, ...)
{
  if (v->warning_count > LW_VOID_MAX_WARNINGS) {
    return;
  }
  char text[768];
  if (v->warning_count == LW_VOID_MAX_WARNINGS) {
    snprintf(text, sizeof(text), "more warnings left out");
  } else {
    va_list ap;
    va_start(ap, fmt);
    char raw[768];
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    /* The warning quotes the provider's literals: a newline or other
     * control character there is shown escaped, in the log and on pages. */
    lw_escape_text(raw, strlen(raw), sizeof(raw), text, sizeof(text));
  }
  char **grown = realloc(v->warnings, (v->warning_count + 1) * sizeof(char *));
  if (!grown) {
    return;
  }
  v->warnings = grown;
  if ((grown[v->warning_count] = strdup(text))) {
    ++v->warning_count;
  }
}

/* The datasets in document order: typed, or implied by the domain of
 * void:dataDump / feature / subset, or the object of void:subset. */
static bool find_datasets(const Collector *c, char ***out, size_t *n)
{
  for (size_t i = 0; i < c->n; ++i) {
    const Triple *t = &c->t[i];
    bool implies = t->p == P_FEATURE || t->p == P_DUMP || t->p == P_SUBSET ||
                   (t->p == P_TYPE && strcmp(t->o, VOID_NS "DatasetDescription"));
    if (implies && !add_string(out, n, t->s)) {
      return false;
    }
    if (t->p == P_SUBSET && !t->o_literal && !add_string(out, n, t->o)) {
      return false;
    }
  }
  return true;
}

static bool iri_is(const char *iri, const char *local)
{
  size_t a = strlen(LW_HARVESTER_NS_GEOLINK), b = strlen(LW_HARVESTER_NS_DATAONE);
  return (!strncmp(iri, LW_HARVESTER_NS_GEOLINK, a) && !strcmp(iri + a, local)) ||
         (!strncmp(iri, LW_HARVESTER_NS_DATAONE, b) && !strcmp(iri + b, local));
}

/* Reads the modified literal of a triple into the latest so far. */
static void take_modified(LwVoid *v, const Triple *t, bool *has, LwDateTime *latest)
{
  LwDateTime dt;
  LwError e;
  if (!t->o_literal) {
    warn(v, "%s: dcterms:modified is not a literal (<%s>), ignored", t->s, t->o);
    return;
  }
  if (lw_datetime_parse(t->o, strlen(t->o), &dt, &e) != LW_OK) {
    warn(v, "%s: dcterms:modified \"%.64s\" is not a date (%s), ignored", t->s, t->o,
         e.message);
    return;
  }
  if (!*has || dt.usec > latest->usec) {
    *latest = dt;
    *has = true;
  }
}

static const char *find_object(const Collector *c, const char *s, Pred p)
{
  for (size_t i = 0; i < c->n; ++i) {
    if (c->t[i].p == p && !strcmp(c->t[i].s, s)) {
      return c->t[i].o;
    }
  }
  return NULL;
}

static char *lower_dup(const char *s)
{
  char *d = strdup(s);
  for (char *p = d; p && *p; ++p) {
    if (*p >= 'A' && *p <= 'Z') {
      *p = (char)(*p - 'A' + 'a');
    }
  }
  return d;
}

/* spdx:checksum of node: algorithm from spdx:checksumAlgorithm_sha1 and
 * friends (or a literal), value as written. */
static bool find_checksum(const Collector *c, const char *node, LwVoidDump *d)
{
  const char *sum = find_object(c, node, P_CHECKSUM);
  if (!sum) {
    return true;
  }
  const char *alg = find_object(c, sum, P_ALGORITHM);
  const char *value = find_object(c, sum, P_CHECKSUM_VALUE);
  if (!alg || !value) {
    return true;
  }
  const char *mark = strstr(alg, "checksumAlgorithm_");
  d->checksum_algorithm = lower_dup(mark ? mark + strlen("checksumAlgorithm_") : alg);
  d->checksum_value = lower_dup(value);
  return d->checksum_algorithm && d->checksum_value;
}

static bool add_dump(LwVoid *v, const Collector *c, const char *dataset, const Triple *t,
                     LwDumpKind kind, size_t dataset_dumps, const char *base)
{
  char *url = NULL;
  if (t->o_literal) {
    url = lw_uri_resolve(base, t->o);
    if (!url) {
      warn(v, "%s: void:dataDump \"%.64s\" is not a URL, ignored", dataset, t->o);
      return true;
    }
    warn(v, "%s: void:dataDump \"%.64s\" is a literal, not an IRI; read as <%s>", dataset,
         t->o, url);
  } else if (!strncmp(t->o, "_:", 2)) {
    warn(v, "%s: void:dataDump is a blank node, ignored", dataset);
    return true;
  } else if (!(url = strdup(t->o))) {
    return false;
  }
  if (!lw_registry_url_valid(url)) {
    warn(v, "%s: dump <%.200s> is not an http(s) URL, ignored", dataset, url);
    free(url);
    return true;
  }
  for (size_t i = 0; i < v->dump_count; ++i) {
    if (!strcmp(v->dumps[i].url, url)) {
      free(url);
      return true;
    }
  }
  if (v->dump_count == LW_VOID_MAX_DUMPS) {
    free(url);
    warn(v, "more than %u dumps: the rest are ignored", LW_VOID_MAX_DUMPS);
    return true;
  }
  LwVoidDump *grown = realloc(v->dumps, (v->dump_count + 1) * sizeof(*grown));
  if (!grown) {
    free(url);
    return false;
  }
  v->dumps = grown;
  LwVoidDump *d = &v->dumps[v->dump_count++];
  memset(d, 0, sizeof(*d));
  d->url = url;
  d->kind = kind;
  d->dataset = strdup(dataset);
  if (!d->dataset || !find_checksum(c, t->o_literal ? url : t->o, d)) {
    return false;
  }
  if (!d->checksum_value && dataset_dumps == 1) {
    return find_checksum(c, dataset, d);
  }
  return true;
}

/* Everything about one dataset: features, kind, modified, dumps. */
static bool read_dataset(LwVoid *v, const Collector *c, const char *ds, const char *base,
                         bool *has_mod, LwDateTime *mod)
{
  bool full = false, partial = false;
  size_t dumps = 0;
  for (size_t i = 0; i < c->n; ++i) {
    const Triple *t = &c->t[i];
    if (strcmp(t->s, ds)) {
      continue;
    }
    if (t->p == P_FEATURE && !t->o_literal) {
      full = full || iri_is(t->o, "FullDump");
      partial = partial || iri_is(t->o, "PartialDump");
      if (!add_string(&v->features, &v->feature_count, t->o)) {
        return false;
      }
    } else if (t->p == P_MODIFIED) {
      take_modified(v, t, has_mod, mod);
    } else if (t->p == P_DUMP) {
      ++dumps;
    }
  }
  if (full && partial) {
    warn(v, "%s: both FullDump and PartialDump features; read as a full dump", ds);
  }
  LwDumpKind kind = full ? LW_DUMP_FULL : partial ? LW_DUMP_PARTIAL : LW_DUMP_UNSTATED;
  for (size_t i = 0; i < c->n; ++i) {
    const Triple *t = &c->t[i];
    if (t->p == P_DUMP && !strcmp(t->s, ds) && !add_dump(v, c, ds, t, kind, dumps, base)) {
      return false;
    }
  }
  return true;
}

/* dcterms:modified of the document itself: a void:DatasetDescription, or
 * the subject named by the VoID's URL. */
static void document_modified(LwVoid *v, const Collector *c, const char *url)
{
  bool has = false;
  LwDateTime latest = {0};
  for (size_t i = 0; i < c->n; ++i) {
    const Triple *t = &c->t[i];
    if (t->p != P_MODIFIED) {
      continue;
    }
    bool described = !strcmp(t->s, url);
    for (size_t j = 0; j < c->n && !described; ++j) {
      described = c->t[j].p == P_TYPE && !strcmp(c->t[j].s, t->s) &&
                  !strcmp(c->t[j].o, VOID_NS "DatasetDescription");
    }
    if (described) {
      take_modified(v, t, &has, &latest);
    }
  }
  if (has) {
    v->modified = latest;
    v->modified_source = LW_MODIFIED_DOCUMENT;
    warn(v, "no dataset has a dcterms:modified: the VoID description's own is used");
  }
}

static LwStatus extract(LwVoid *v, const Collector *c, const char *url, LwError *err)
{
  char **datasets = NULL;
  size_t n = 0;
  bool ok = find_datasets(c, &datasets, &n);
  bool has_mod = false;
  LwDateTime mod = {0};
  for (size_t i = 0; ok && i < n; ++i) {
    ok = read_dataset(v, c, datasets[i], url, &has_mod, &mod);
  }
  for (size_t i = 0; i < n; ++i) {
    free(datasets[i]);
  }
  free(datasets);
  if (!ok) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  v->dataset_count = n;
  if (has_mod) {
    v->modified = mod;
    v->modified_source = LW_MODIFIED_DATASET;
  } else {
    document_modified(v, c, url);
  }
  for (size_t i = 0; i < v->dump_count; ++i) {
    if (v->dumps[i].kind == LW_DUMP_FULL) {
      v->kind = LW_DUMP_FULL;
    } else if (v->dumps[i].kind == LW_DUMP_PARTIAL && v->kind != LW_DUMP_FULL) {
      v->kind = LW_DUMP_PARTIAL;
    }
  }
  if (n == 0) {
    return lw_error_set(err, LW_ERR_FORMAT,
                        "no void:Dataset in the VoID (%llu statements read)",
                        v->statements);
  }
  if (v->dump_count == 0) {
    return lw_error_set(err, LW_ERR_FORMAT,
                        "no usable void:dataDump in the VoID (%zu dataset%s)", n,
                        n == 1 ? "" : "s");
  }
  return LW_OK;
}

/* ---- syntax choice and recovery ---- */

static bool has_suffix_ci(const char *s, size_t n, const char *suffix)
{
  size_t k = strlen(suffix);
  return n >= k && !strncasecmp(s + n - k, suffix, k);
}

static LwFormat format_from_url(const char *url)
{
  if (!url) {
    return LW_FORMAT_UNKNOWN;
  }
  size_t n = strcspn(url, "?#");
  static const struct {
    const char *ext;
    LwFormat format;
  } table[] = {{".ttl", LW_FORMAT_TURTLE}, {".n3", LW_FORMAT_TURTLE},
               {".nt", LW_FORMAT_TURTLE},  {".rdf", LW_FORMAT_RDFXML},
               {".xml", LW_FORMAT_RDFXML}, {".owl", LW_FORMAT_RDFXML}};
  for (size_t i = 0; i < sizeof(table) / sizeof(*table); ++i) {
    if (has_suffix_ci(url, n, table[i].ext)) {
      return table[i].format;
    }
  }
  return LW_FORMAT_UNKNOWN;
}

static LwFormat format_from_media_type(const char *mt)
{
  if (!mt) {
    return LW_FORMAT_UNKNOWN;
  }
  size_t n = strcspn(mt, "; \t");
  static const struct {
    const char *type;
    LwFormat format;
  } table[] = {{"text/turtle", LW_FORMAT_TURTLE},
               {"application/x-turtle", LW_FORMAT_TURTLE},
               {"text/n3", LW_FORMAT_TURTLE},
               {"application/n-triples", LW_FORMAT_TURTLE},
               {"application/rdf+xml", LW_FORMAT_RDFXML},
               {"application/xml", LW_FORMAT_RDFXML},
               {"text/xml", LW_FORMAT_RDFXML}};
  for (size_t i = 0; i < sizeof(table) / sizeof(*table); ++i) {
    if (strlen(table[i].type) == n && !strncasecmp(mt, table[i].type, n)) {
      return table[i].format;
    }
  }
  return LW_FORMAT_UNKNOWN;
}

static bool name_char(char c)
{
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '-' || c == '.';
}

/* RDF/XML if the first thing is an XML declaration, comment, doctype or an
 * element such as <rdf:RDF ...>; a Turtle IRI such as <http://...> is not. */
static LwFormat format_from_content(const char *data, size_t len)
{
  size_t i = 0;
  if (len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3)) {
    i = 3;
  }
  while (i < len &&
         (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n')) {
    ++i;
  }
  if (i + 1 < len && data[i] == '<' && (data[i + 1] == '?' || data[i + 1] == '!')) {
    return LW_FORMAT_RDFXML;
  }
  if (i < len && data[i] == '<') {
    size_t j = i + 1;
    while (j < len && (name_char(data[j]) || data[j] == ':')) {
      if (data[j] == ':' && j + 1 < len && data[j + 1] == '/') {
        return LW_FORMAT_TURTLE;
      }
      ++j;
    }
    if (j > i + 1 && j < len &&
        (data[j] == ' ' || data[j] == '\t' || data[j] == '\r' || data[j] == '\n')) {
      return LW_FORMAT_RDFXML;
    }
  }
  return LW_FORMAT_TURTLE;
}

LwFormat lw_void_guess_format(const char *url, const char *media_type, const char *data,
                              size_t len)
{
  LwFormat f = format_from_url(url);
  if (f == LW_FORMAT_UNKNOWN) {
    f = format_from_media_type(media_type);
  }
  if (f == LW_FORMAT_UNKNOWN) {
    f = format_from_content(data, len);
  }
  return f;
}

static bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\r';
}

/* A word written twice ("void:feature void:feature <x>", as in the GeoLink
 * proposal): blanks the second of two equal neighbouring words on line.
 * False if the line has none. */
static bool unstutter_line(char *buf, size_t len, unsigned line)
{
  size_t i = 0;
  for (unsigned l = 1; l < line && i < len; ++i) {
    l += buf[i] == '\n';
  }
  size_t prev = 0, prev_len = 0;
  while (i < len && buf[i] != '\n') {
    while (i < len && is_space(buf[i])) {
      ++i;
    }
    size_t start = i;
    while (i < len && buf[i] != '\n' && !is_space(buf[i])) {
      ++i;
    }
    size_t n = i - start;
    /* Words only: a quote could be inside a literal. */
    if (n && memchr(buf + start, '"', n) == NULL && memchr(buf + start, '\'', n) == NULL) {
      if (n == prev_len && !memcmp(buf + prev, buf + start, n)) {
        memset(buf + start, ' ', n);
        return true;
      }
      prev = start;
      prev_len = n;
    } else {
      prev_len = 0;
    }
  }
  return false;
}

/* Turtle: while a reading has errors, read again without a word written
 * twice on the first offending line, or else without that line, and keep
 * the new reading if it lost nothing. */
static void recover_turtle(char *buf, size_t len, const char *url, Reading *best, LwVoid *v)
{
  for (int attempt = 0; attempt < MAX_RETRIES && best->errors.count > 0; ++attempt) {
    unsigned line = best->errors.first_line;
    bool stutter = unstutter_line(buf, len, line);
    if (!stutter && !lw_text_blank_line(buf, len, line)) {
      return;
    }
    Reading next;
    read_document(buf, len, LW_FORMAT_TURTLE, url, &next);
    if (next.status == LW_ERR_NOMEM || next.status == LW_ERR_LIMIT ||
        next.kept.n < best->kept.n || next.stats.statements < best->stats.statements) {
      reading_clear(&next);
      return;
    }
    warn(v,
         stutter ? "line %u: a word written twice was read once"
                 : "line %u left out to read the rest of its statement",
         line);
    reading_clear(best);
    *best = next;
  }
}

/* The first few errors of the first reading say where the document is
 * broken; the rest are often a cascade of the first. */
static void report_syntax(LwVoid *v, const Reading *r)
{
  v->syntax_errors = r->errors.count;
  for (size_t i = 0; i < r->errors.message_count && i < 2; ++i) {
    warn(v, "%s syntax error, %s", lw_format_name(r->format), r->errors.messages[i]);
  }
  if (r->errors.count > 2) {
    warn(v, "%llu syntax errors in all; what parsed is used", r->errors.count);
  }
}

LwStatus lw_void_parse(const char *data, size_t len, const char *url,
                       const char *media_type, LwVoid **out, LwError *err)
{
  *out = NULL;
  if (!url || !lw_uri_is_absolute(url)) {
    return lw_error_set(err, LW_ERR_USAGE, "a VoID needs its absolute URL as base");
  }
  if (len > LW_VOID_MAX_BYTES) {
    return lw_error_set(err, LW_ERR_LIMIT, "VoID larger than %u bytes", LW_VOID_MAX_BYTES);
  }
  if (len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3)) {
    data += 3; /* a BOM says nothing the readers need */
    len -= 3;
  }
  /* A private copy: Turtle recovery edits it. */
  char *buf = malloc(len ? len : 1);
  LwVoid *v = calloc(1, sizeof(*v));
  if (!buf || !v) {
    free(buf);
    free(v);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  if (len) {
    memcpy(buf, data, len);
  }
  LwFormat first = lw_void_guess_format(url, media_type, buf, len);
  Reading best;
  read_document(buf, len, first, url, &best);
  if (best.kept.n == 0 && best.stats.statements == 0 && best.status != LW_ERR_NOMEM) {
    /* Wrong label? Try the other syntax; keep whichever read something. */
    LwFormat other = first == LW_FORMAT_RDFXML ? LW_FORMAT_TURTLE : LW_FORMAT_RDFXML;
    Reading alt;
    read_document(buf, len, other, url, &alt);
    if (alt.stats.statements > 0) {
      warn(v, "read as %s, not %s as its name or media type suggests",
           lw_format_name(other), lw_format_name(first));
      reading_clear(&best);
      best = alt;
    } else {
      reading_clear(&alt);
    }
  }
  LwStatus st = LW_OK;
  if (best.status == LW_ERR_NOMEM || best.status == LW_ERR_LIMIT) {
    st = lw_error_set(err, best.status, "%s", best.err.message);
  } else if (best.stats.statements == 0) {
    st = lw_error_set(err, LW_ERR_SYNTAX, "not RDF: no statement could be read as %s%s%s",
                      lw_format_name(best.format), best.errors.message_count ? "; " : "",
                      best.errors.message_count ? best.errors.messages[0]
                                                : best.err.message);
  } else {
    report_syntax(v, &best);
    if (best.status != LW_OK && best.err.message[0]) {
      warn(v, "%s", best.err.message);
    }
    if (best.format == LW_FORMAT_TURTLE) {
      recover_turtle(buf, len, url, &best, v);
      if (best.errors.count) {
        warn(v, "%llu syntax errors remain after recovery", best.errors.count);
      }
    }
    v->format = best.format;
    v->statements = best.stats.statements;
    st = extract(v, &best.kept, url, err);
  }
  reading_clear(&best);
  free(buf);
  if (st != LW_OK) {
    lw_void_free(v);
    return st;
  }
  *out = v;
  return LW_OK;
}

const char *lw_dump_kind_name(LwDumpKind kind)
{
  switch (kind) {
  case LW_DUMP_FULL:
    return "full";
  case LW_DUMP_PARTIAL:
    return "partial";
  case LW_DUMP_UNSTATED:
    break;
  }
  return "unstated";
}

void lw_void_free(LwVoid *v)
{
  if (!v) {
    return;
  }
  for (size_t i = 0; i < v->dump_count; ++i) {
    free(v->dumps[i].url);
    free(v->dumps[i].dataset);
    free(v->dumps[i].checksum_algorithm);
    free(v->dumps[i].checksum_value);
  }
  for (size_t i = 0; i < v->feature_count; ++i) {
    free(v->features[i]);
  }
  for (size_t i = 0; i < v->warning_count; ++i) {
    free(v->warnings[i]);
  }
  free(v->dumps);
  free(v->features);
  free(v->warnings);
  free(v);
}
