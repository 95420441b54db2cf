/*
 * DCAT (1, 2, 3) and DCAT-AP (1.1 to 3) documents, in any RDF syntax, into
 * one LwSourcePage (see lw_dcat_parse in sources/sources.h).
 *
 * Reading: the syntax the content's guess names (media type and URL break
 * ties; other syntaxes only when it yields nothing), Turtle read again
 * without a broken line while that loses nothing. What is kept is a small
 * store: the terms of the few dozen predicates that matter here, interned,
 * and those statements; every other statement only marks its subject as
 * described (a linked dataset or catalogue with no statement of its own is
 * a document to read next). The statements are then sorted by subject, so
 * that a catalogue of thousands of datasets is read in n log n.
 *
 * Extracting: a distribution's downloadURLs are its dumps, else its
 * accessURLs when its format is declared RDF (an accessURL is mostly a
 * landing page); a declared format that is not RDF makes skips, as does a
 * data service. A blank-node dataset is named by what survives a new fetch
 * (its dct:identifier, or its distributions' URLs), not by its label.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rdf_readers/rdf_readers.h"
#include "sources/sources.h"

#define RDF_NS "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#define RDFS_NS "http://www.w3.org/2000/01/rdf-schema#"
#define DCAT_NS "http://www.w3.org/ns/dcat#"
#define DCT_NS "http://purl.org/dc/terms/"
#define SPDX_NS "http://spdx.org/rdf/terms#"
#define HYDRA_NS "http://www.w3.org/ns/hydra/core#"

/* What one reading may keep: the document itself is at most 16 MB (the
 * fetcher's cap), the store a few times that. */
#define MAX_KEPT_BYTES ((size_t)64 << 20)
#define NO_TERM UINT32_MAX
/* Declared formats and URLs are shown in reasons at most this long. */
#define SHOWN_MAX 120

/* ---- the statements that matter ----------------------------------------- */

typedef enum {
  P_TYPE,
  P_DATASET,
  P_CATALOG,
  P_HAS_PART,
  P_DISTRIBUTION,
  P_DOWNLOAD_URL,
  P_ACCESS_URL,
  P_ACCESS_SERVICE,
  P_MEDIA_TYPE,
  P_FORMAT,
  P_PACKAGE_FORMAT,
  P_COMPRESS_FORMAT,
  P_TITLE,
  P_IDENTIFIER,
  P_MODIFIED,
  P_ISSUED,
  P_CHECKSUM,
  P_ALGORITHM,
  P_CHECKSUM_VALUE,
  P_VALUE,
  P_LABEL,
  P_NEXT,
  P_OTHER
} Pred;

static Pred pred_of(const char *iri)
{
  static const struct {
    const char *iri;
    Pred p;
  } table[] = {
    {RDF_NS "type", P_TYPE},
    {DCAT_NS "dataset", P_DATASET},
    {DCAT_NS "catalog", P_CATALOG},
    {DCT_NS "hasPart", P_HAS_PART},
    {DCAT_NS "distribution", P_DISTRIBUTION},
    {DCAT_NS "downloadURL", P_DOWNLOAD_URL},
    {DCAT_NS "accessURL", P_ACCESS_URL},
    {DCAT_NS "accessService", P_ACCESS_SERVICE},
    {DCAT_NS "mediaType", P_MEDIA_TYPE},
    {DCT_NS "format", P_FORMAT},
    {DCAT_NS "packageFormat", P_PACKAGE_FORMAT},
    {DCAT_NS "compressFormat", P_COMPRESS_FORMAT},
    {DCT_NS "title", P_TITLE},
    {DCT_NS "identifier", P_IDENTIFIER},
    {DCT_NS "modified", P_MODIFIED},
    {DCT_NS "issued", P_ISSUED},
    {SPDX_NS "checksum", P_CHECKSUM},
    {SPDX_NS "algorithm", P_ALGORITHM},
    {SPDX_NS "checksumValue", P_CHECKSUM_VALUE},
    {RDF_NS "value", P_VALUE},
    {RDFS_NS "label", P_LABEL},
    {HYDRA_NS "next", P_NEXT},
    {HYDRA_NS "nextPage", P_NEXT},
  };
  for (size_t i = 0; i < sizeof(table) / sizeof(*table); ++i) {
    if (!strcmp(iri, table[i].iri)) {
      return table[i].p;
    }
  }
  return P_OTHER;
}

/* The rdf:type objects kept (others say nothing here). */
typedef enum { T_NONE, T_DATASET, T_CATALOG } TypeClass;

static TypeClass type_class(const char *iri)
{
  if (!strcmp(iri, DCAT_NS "Dataset") || !strcmp(iri, DCAT_NS "DatasetSeries")) {
    return T_DATASET;
  }
  /* "dcat:Catalogue" is not DCAT, but the DCAT-AP HVD examples write it */
  if (!strcmp(iri, DCAT_NS "Catalog") || !strcmp(iri, DCAT_NS "Catalogue")) {
    return T_CATALOG;
  }
  return T_NONE;
}

/* ---- the store: interned terms and kept statements ---------------------- */

typedef enum { K_IRI = 'I', K_BLANK = 'B', K_LITERAL = 'L' } Kind;

typedef struct {
  size_t off;     /* in Store.text: the kind byte, the value, a NUL */
  uint32_t len;   /* of the value */
  bool described; /* the subject of some statement of the document */
} Term;

typedef struct {
  uint32_t s, o;
  uint32_t seq;       /* document order */
  uint8_t p;          /* Pred */
  bool preferred_tag; /* a literal without language tag, or in English */
} Stmt;

typedef struct {
  LwBuf text;
  Term *terms;
  size_t term_count, term_cap;
  uint32_t *slots; /* open addressing: term id + 1, 0 when empty */
  size_t slot_count;
  Stmt *stmts;
  size_t stmt_count, stmt_cap;
  LwStatus status; /* LW_ERR_NOMEM or LW_ERR_LIMIT once something was lost */
} Store;

static void store_free(Store *st)
{
  lw_buf_free(&st->text);
  free(st->terms);
  free(st->slots);
  free(st->stmts);
  memset(st, 0, sizeof(*st));
}

static size_t store_bytes(const Store *st)
{
  return st->text.cap + st->term_cap * sizeof(Term) + st->slot_count * sizeof(uint32_t) +
         st->stmt_cap * sizeof(Stmt);
}

static const char *term_value(const Store *st, uint32_t id)
{
  return st->text.data + st->terms[id].off + 1;
}

static Kind term_kind(const Store *st, uint32_t id)
{
  return (Kind)st->text.data[st->terms[id].off];
}

static uint64_t hash_term(char kind, const char *value, size_t len)
{
  uint64_t h = 1469598103934665603ull ^ (unsigned char)kind;
  for (size_t i = 0; i < len; ++i) {
    h = (h ^ (unsigned char)value[i]) * 1099511628211ull;
  }
  return h;
}

static bool term_equals(const Store *st, uint32_t id, char kind, const char *value,
                        size_t len)
{
  const Term *t = &st->terms[id];
  return t->len == len && st->text.data[t->off] == kind &&
         !memcmp(st->text.data + t->off + 1, value, len);
}

/* Doubles the hash table (load at most one half). */
static bool rehash(Store *st)
{
  size_t count = st->slot_count ? st->slot_count * 2 : 1024;
  uint32_t *slots = calloc(count, sizeof(*slots));
  if (!slots) {
    return false;
  }
  for (uint32_t id = 0; id < st->term_count; ++id) {
    const Term *t = &st->terms[id];
    size_t i = hash_term(st->text.data[t->off], st->text.data + t->off + 1, t->len) &
               (count - 1);
    while (slots[i]) {
      i = (i + 1) & (count - 1);
    }
    slots[i] = id + 1;
  }
  free(st->slots);
  st->slots = slots;
  st->slot_count = count;
  return true;
}

static bool over_budget(Store *st)
{
  if (store_bytes(st) <= MAX_KEPT_BYTES) {
    return false;
  }
  st->status = LW_ERR_LIMIT;
  return true;
}

static uint32_t add_term(Store *st, char kind, const char *value, size_t len)
{
  if (st->term_count == st->term_cap) {
    size_t cap = st->term_cap ? st->term_cap * 2 : 256;
    Term *terms = realloc(st->terms, cap * sizeof(*terms));
    if (!terms) {
      return NO_TERM;
    }
    st->terms = terms;
    st->term_cap = cap;
  }
  Term t = {st->text.len, (uint32_t)len, false};
  if (lw_buf_append_char(&st->text, kind) || lw_buf_append(&st->text, value, len) ||
      lw_buf_append_char(&st->text, '\0')) {
    return NO_TERM;
  }
  st->terms[st->term_count] = t;
  return (uint32_t)st->term_count++;
}

/* The id of the term, added when new; NO_TERM (st->status says why) when it
 * cannot be kept. */
static uint32_t intern(Store *st, char kind, const char *value, size_t len)
{
  if (len > UINT32_MAX || over_budget(st)) {
    st->status = LW_ERR_LIMIT;
    return NO_TERM;
  }
  if ((st->term_count + 1) * 2 > st->slot_count && !rehash(st)) {
    st->status = LW_ERR_NOMEM;
    return NO_TERM;
  }
  size_t mask = st->slot_count - 1;
  size_t i = hash_term(kind, value, len) & mask;
  for (; st->slots[i]; i = (i + 1) & mask) {
    if (term_equals(st, st->slots[i] - 1, kind, value, len)) {
      return st->slots[i] - 1;
    }
  }
  uint32_t id = add_term(st, kind, value, len);
  if (id == NO_TERM) {
    st->status = LW_ERR_NOMEM;
    return NO_TERM;
  }
  st->slots[i] = id + 1;
  return id;
}

static uint32_t intern_term(Store *st, const LwTerm *t)
{
  char kind = t->type == LW_TERM_IRI     ? K_IRI
              : t->type == LW_TERM_BLANK ? K_BLANK
                                         : K_LITERAL;
  return intern(st, kind, t->value, t->len);
}

static bool add_stmt(Store *st, Stmt s)
{
  if (st->stmt_count == st->stmt_cap) {
    size_t cap = st->stmt_cap ? st->stmt_cap * 2 : 256;
    Stmt *stmts = realloc(st->stmts, cap * sizeof(*stmts));
    if (!stmts) {
      st->status = LW_ERR_NOMEM;
      return false;
    }
    st->stmts = stmts;
    st->stmt_cap = cap;
  }
  s.seq = (uint32_t)st->stmt_count;
  st->stmts[st->stmt_count++] = s;
  return true;
}

static bool preferred_tag(const LwTerm *t)
{
  const char *lang = t->lang;
  return !lang || !*lang ||
         ((lang[0] == 'e' || lang[0] == 'E') && (lang[1] == 'n' || lang[1] == 'N') &&
          (lang[2] == '\0' || lang[2] == '-'));
}

/* The quad sink: marks every subject described, keeps what matters. */
static LwStatus keep_quad(void *handle, const LwQuad *q)
{
  Store *st = handle;
  if (q->subject.type != LW_TERM_IRI && q->subject.type != LW_TERM_BLANK) {
    return LW_OK;
  }
  uint32_t s = intern_term(st, &q->subject);
  if (s == NO_TERM) {
    return st->status;
  }
  st->terms[s].described = true;
  Pred p = q->predicate.type == LW_TERM_IRI ? pred_of(q->predicate.value) : P_OTHER;
  if (p == P_OTHER ||
      (p == P_TYPE && (q->object.type != LW_TERM_IRI || !type_class(q->object.value)))) {
    return LW_OK;
  }
  uint32_t o = intern_term(st, &q->object);
  if (o == NO_TERM) {
    return st->status;
  }
  Stmt stmt = {.s = s, .o = o, .p = (uint8_t)p, .preferred_tag = preferred_tag(&q->object)};
  return add_stmt(st, stmt) ? LW_OK : st->status;
}

static int by_subject(const void *a, const void *b)
{
  const Stmt *x = a, *y = b;
  if (x->s != y->s) {
    return x->s < y->s ? -1 : 1;
  }
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The first statement about s in the sorted store (stmt_count if none). */
static size_t first_about(const Store *st, uint32_t s)
{
  size_t lo = 0, hi = st->stmt_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (st->stmts[mid].s < s) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/* Walks the objects of (s, p) in document order. */
typedef struct {
  const Store *st;
  uint32_t s;
  Pred p;
  size_t i;
} Objects;

static Objects objects_of(const Store *st, uint32_t s, Pred p)
{
  Objects it = {st, s, p, first_about(st, s)};
  return it;
}

static const Stmt *objects_next(Objects *it)
{
  for (; it->i < it->st->stmt_count && it->st->stmts[it->i].s == it->s; ++it->i) {
    if (it->st->stmts[it->i].p == it->p) {
      return &it->st->stmts[it->i++];
    }
  }
  return NULL;
}

static bool has_object(const Store *st, uint32_t s, Pred p)
{
  Objects it = objects_of(st, s, p);
  return objects_next(&it) != NULL;
}

/* ---- reading the document ----------------------------------------------- */

/* One reading of the document: its statements and its syntax errors (the
 * first few are kept, as the rest are often a cascade of the first). */
typedef struct {
  LwFormat format;
  LwStatus status;
  LwError err;
  LwReadStats stats;
  LwSyntaxLog errors;
  Store store;
} Reading;

static void read_document(const char *data, size_t len, LwFormat format, const char *url,
                          Reading *r)
{
  memset(r, 0, sizeof(*r));
  r->format = format;
  lw_error_clear(&r->err);
  /* No load_document: remote JSON-LD contexts are not fetched (a source's
   * documents are read within the visit's caps, and a context is one more
   * host to trust). */
  LwReadOptions options = {.format = format,
                           .base_iri = url,
                           .on_quad = keep_quad,
                           .quad_handle = &r->store,
                           .on_error = lw_syntax_log_add,
                           .error_handle = &r->errors};
  r->status = lw_rdf_read_memory(data, len, &options, &r->stats, &r->err);
  if (r->store.status == LW_ERR_NOMEM) {
    r->status = lw_error_set(&r->err, LW_ERR_NOMEM, "out of memory");
  } else if (r->store.status == LW_ERR_LIMIT) {
    r->status = lw_error_set(&r->err, LW_ERR_LIMIT,
                             "the DCAT document describes more than %zu MB of terms",
                             MAX_KEPT_BYTES >> 20);
  }
}

static void reading_clear(Reading *r)
{
  store_free(&r->store);
}

static void add_format(LwFormat *list, size_t *n, LwFormat f)
{
  if (f == LW_FORMAT_UNKNOWN) {
    return;
  }
  for (size_t i = 0; i < *n; ++i) {
    if (list[i] == f) {
      return;
    }
  }
  list[(*n)++] = f;
}

/* The syntaxes to try, best first: the content's guess (the media type and
 * the URL's extension break ties), what the media type and the URL say on
 * their own, then the usual DCAT syntaxes. Content the guess finds not to
 * be RDF (an HTML page without RDFa, a PDF) is not read at all, or, when
 * the guess saw only part of it, only in what the media type or the URL
 * name: lax Turtle makes statements of anything that has three IRIs in a
 * row, "<html><head><title>" too. */
static size_t candidate_formats(const char *data, size_t len, const char *url,
                                const char *media_type, LwFormat list[8], LwGuessInfo *info)
{
  size_t n = 0;
  size_t head = len < LW_GUESS_HEAD_MAX ? len : LW_GUESS_HEAD_MAX;
  LwFormat guess = lw_guess_format(data, head, media_type, url, info);
  if (guess == LW_FORMAT_NTRIPLES && info->partial) {
    guess = LW_FORMAT_TURTLE; /* N-Triples so far; Turtle reads it too */
  }
  if (guess == LW_FORMAT_UNKNOWN && !info->partial) {
    return 0; /* the whole head was seen: not RDF */
  }
  add_format(list, &n, guess);
  add_format(list, &n, lw_guess_from_media_type(media_type));
  add_format(list, &n, lw_guess_from_filename(url));
  if (guess != LW_FORMAT_UNKNOWN) {
    add_format(list, &n, LW_FORMAT_TURTLE);
    add_format(list, &n, LW_FORMAT_RDFXML);
    add_format(list, &n, LW_FORMAT_JSONLD);
  }
  return n;
}

/* Why nothing could be read, from the first (most likely) reading. */
static LwStatus unreadable(const Reading *r, const LwGuessInfo *info, LwError *err)
{
  if (r->format == LW_FORMAT_JSONLD && strstr(r->err.message, "remote context")) {
    return lw_error_set(err, LW_ERR_SYNTAX,
                        "the JSON-LD document names a remote @context, which is not "
                        "loaded (DCAT documents are read without fetching contexts): %s",
                        r->err.message);
  }
  const char *why = r->errors.message_count ? r->errors.messages[0] : r->err.message;
  return lw_error_set(err, LW_ERR_SYNTAX,
                      "not RDF: no statement could be read as %s (content: %s)%s%s",
                      lw_format_name(r->format), info->reason[0] ? info->reason : "?",
                      why[0] ? "; " : "", why);
}

static bool read_stopped(LwStatus status)
{
  return status == LW_ERR_NOMEM || status == LW_ERR_LIMIT;
}

/* Reads the document in the first syntax that yields statements. A cap hit
 * fails it: a catalogue read in part would show its other datasets gone. */
static LwStatus read_best(const char *data, size_t len, const char *url,
                          const char *media_type, Reading *best, LwError *err)
{
  LwFormat formats[8];
  LwGuessInfo info;
  size_t n = candidate_formats(data, len, url, media_type, formats, &info);
  memset(best, 0, sizeof(*best));
  if (n == 0) {
    return lw_error_set(err, LW_ERR_SYNTAX, "not RDF: %s", info.reason);
  }
  read_document(data, len, formats[0], url, best);
  for (size_t i = 1; i < n && best->stats.statements == 0 && !read_stopped(best->status);
       ++i) {
    Reading other;
    read_document(data, len, formats[i], url, &other);
    if (other.stats.statements > 0 || read_stopped(other.status)) {
      reading_clear(best); /* the first reading's errors said nothing useful */
      *best = other;
    } else {
      reading_clear(&other);
    }
  }
  if (read_stopped(best->status)) {
    return lw_error_set(err, best->status, "%s", best->err.message);
  }
  if (best->stats.statements == 0) {
    return unreadable(best, &info, err);
  }
  return LW_OK;
}

/* Survived syntax errors: the first two, and how many in all. */
static void report_syntax(LwSourcePage *page, const Reading *r)
{
  for (size_t i = 0; i < r->errors.message_count && i < 2; ++i) {
    lw_source_warn(page, "%s syntax error, %s", lw_format_name(r->format),
                   r->errors.messages[i]);
  }
  if (r->errors.count > 2) {
    lw_source_warn(page, "%llu syntax errors in all; what parsed is used", r->errors.count);
  }
  if (r->status != LW_OK && r->err.message[0]) {
    lw_source_warn(page, "%s: %s; what came before is used", lw_status_name(r->status),
                   r->err.message);
  }
}

/* ---- Turtle recovery ---------------------------------------------------- */

/* How often a Turtle document is read again without an offending line. */
#define MAX_RETRIES 8

/* Turtle: serd gives up on the rest of a statement after an error, so a
 * typo ("^^<<", an undeclared prefix) can cost a dataset its title or a
 * distribution its format. While the reading has errors, it is read again
 * without the first offending line, and the new reading is kept when it
 * lost no statement. */
static void recover_turtle(const char *data, size_t len, const char *url, Reading *best,
                           LwSourcePage *page)
{
  if (best->format != LW_FORMAT_TURTLE || best->errors.count == 0) {
    return;
  }
  char *buf = malloc(len);
  if (!buf) {
    return; /* the first reading stands */
  }
  memcpy(buf, data, len);
  for (int attempt = 0; attempt < MAX_RETRIES && best->errors.count > 0; ++attempt) {
    unsigned line = best->errors.first_line;
    if (!lw_text_blank_line(buf, len, line)) {
      break;
    }
    Reading next;
    read_document(buf, len, LW_FORMAT_TURTLE, url, &next);
    if (next.status == LW_ERR_NOMEM || next.status == LW_ERR_LIMIT ||
        next.stats.statements < best->stats.statements ||
        next.store.stmt_count < best->store.stmt_count) {
      reading_clear(&next);
      break;
    }
    lw_source_warn(page, "line %u left out to read the rest of its statement", line);
    reading_clear(best);
    *best = next;
  }
  if (best->errors.count) {
    lw_source_warn(page, "%llu syntax errors remain after recovery", best->errors.count);
  }
  free(buf);
}

/* ---- small text helpers ------------------------------------------------- */

/* A copy of s without surrounding white space; NULL when out of memory. */
static char *trimmed(const char *s)
{
  while (isspace((unsigned char)*s)) {
    ++s;
  }
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) {
    --n;
  }
  char *copy = malloc(n + 1);
  if (copy) {
    memcpy(copy, s, n);
    copy[n] = '\0';
  }
  return copy;
}

static bool is_http_url(const char *url)
{
  LwUriParts parts;
  lw_uri_split(url, &parts);
  if (!parts.scheme.ptr || !parts.authority.ptr || parts.authority.len == 0) {
    return false;
  }
  return (parts.scheme.len == 4 && !strncasecmp(parts.scheme.ptr, "http", 4)) ||
         (parts.scheme.len == 5 && !strncasecmp(parts.scheme.ptr, "https", 5));
}

/* A URL given as an IRI or a literal (some publishers write
 * dcat:downloadURL "http://..."): the IRI, or the literal trimmed and
 * resolved against the document's URL. NULL for a blank node, a literal
 * that is no URL, or out of memory (*oom). */
static char *url_of(const Store *st, uint32_t o, const char *base, bool *oom)
{
  Kind kind = term_kind(st, o);
  char *url = NULL;
  if (kind == K_IRI) {
    url = strdup(term_value(st, o));
  } else if (kind == K_LITERAL) {
    char *text = trimmed(term_value(st, o));
    if (!text) {
      *oom = true;
      return NULL;
    }
    /* "see the website" resolves too: a URL holds no spaces, quotes, ... */
    bool plausible = *text && !text[strcspn(text, " \t\r\n<>\"{}|^`\\")];
    url = plausible ? lw_uri_resolve(base, text) : NULL;
    *oom = plausible && !url;
    free(text);
    return url;
  } else {
    return NULL;
  }
  *oom = *oom || !url;
  return url;
}

/* ---- declared formats --------------------------------------------------- */

/* What one dcat:mediaType / dct:format / ... says. */
typedef struct {
  LwMediaClass cls;
  char shown[SHOWN_MAX];      /* for reasons: "text/csv", "SHP", "CSV" */
  char media_type[SHOWN_MAX]; /* a media type ("text/turtle"), or "" */
} Declared;

/* "type/subtype" (parameters allowed): a media type, not a label. */
static bool looks_like_media_type(const char *s)
{
  const char *slash = strchr(s, '/');
  if (!slash || slash == s || !slash[1] || strchr(slash + 1, '/') || strchr(s, ':')) {
    return false;
  }
  for (const char *p = s; *p && *p != ';'; ++p) {
    if (isspace((unsigned char)*p)) {
      return false;
    }
  }
  return true;
}

/* How a format is shown: an IANA IRI's "type/subtype", another IRI's last
 * segment (the EU authority's "RDF_TURTLE"), a literal as written. */
static void show_format(const char *format, char out[SHOWN_MAX])
{
  static const char iana[] = "iana.org/assignments/media-types/";
  const char *m = strstr(format, iana);
  const char *shown = format;
  if (m) {
    shown = m + sizeof(iana) - 1;
  } else if (!strncasecmp(format, "http://", 7) || !strncasecmp(format, "https://", 8)) {
    const char *slash = strrchr(format, '/'), *hash = strrchr(format, '#');
    const char *tail = hash && hash > slash ? hash : slash;
    shown = tail[1] ? tail + 1 : format;
  }
  while (isspace((unsigned char)*shown)) {
    ++shown;
  }
  snprintf(out, SHOWN_MAX, "%s", shown);
  size_t n = strlen(out);
  while (n && isspace((unsigned char)out[n - 1])) {
    out[--n] = '\0';
  }
}

static void declare(const char *format, Declared *d)
{
  d->cls = lw_media_class(format);
  show_format(format, d->shown);
  d->media_type[0] = '\0';
  if (looks_like_media_type(d->shown)) {
    snprintf(d->media_type, SHOWN_MAX, "%s", d->shown);
  }
}

/* Reads one format object: a literal or an IRI says it itself; a node may
 * say it with rdf:value ("text/csv") or rdfs:label ("CSV") (DCAT-AP 1.1's
 * dct:IMT). The first of them that lw_media_class knows decides. */
static void read_declared(const Store *st, uint32_t o, Declared *d)
{
  Kind kind = term_kind(st, o);
  declare(kind == K_BLANK ? "" : term_value(st, o), d);
  if (kind == K_LITERAL || d->cls != LW_MEDIA_UNKNOWN) {
    return;
  }
  static const Pred described_by[] = {P_VALUE, P_LABEL};
  for (size_t k = 0; k < 2; ++k) {
    Objects it = objects_of(st, o, described_by[k]);
    for (const Stmt *s; (s = objects_next(&it));) {
      if (term_kind(st, s->o) == K_BLANK) {
        continue;
      }
      Declared v;
      declare(term_value(st, s->o), &v);
      if (!d->shown[0] || v.cls != LW_MEDIA_UNKNOWN) {
        *d = v;
      }
      if (v.cls != LW_MEDIA_UNKNOWN) {
        return;
      }
    }
  }
}

/* What a distribution's content formats (dcat:mediaType, dct:format) say
 * together: RDF wins, then HTML, then not RDF. dcat:packageFormat and
 * dcat:compressFormat name the container (a zip, a gzip): they do not say
 * what is inside, so they change nothing (an archive is guessed unless its
 * mediaType says RDF). */
static void read_content_format(const Store *st, uint32_t dist, Declared *out)
{
  static const Pred content[] = {P_MEDIA_TYPE, P_FORMAT};
  static const LwMediaClass rank[] = {LW_MEDIA_RDF, LW_MEDIA_HTML, LW_MEDIA_NOT_RDF,
                                      LW_MEDIA_UNKNOWN};
  memset(out, 0, sizeof(*out));
  out->cls = LW_MEDIA_UNKNOWN;
  bool found = false;
  for (size_t r = 0; r < 4 && !found; ++r) {
    for (size_t k = 0; k < 2; ++k) {
      Objects it = objects_of(st, dist, content[k]);
      for (const Stmt *s; (s = objects_next(&it));) {
        Declared d;
        read_declared(st, s->o, &d);
        if (d.cls != rank[r]) {
          continue;
        }
        if (!found) {
          *out = d;
          found = true;
        } else if (!out->media_type[0] && d.media_type[0]) {
          memcpy(out->media_type, d.media_type, SHOWN_MAX);
        }
      }
    }
  }
}

/* ---- checksums ---------------------------------------------------------- */

static bool is_hex(const char *s)
{
  if (!*s) {
    return false;
  }
  for (; *s; ++s) {
    if (!isxdigit((unsigned char)*s)) {
      return false;
    }
  }
  return true;
}

/* spdx:checksum [ spdx:algorithm spdx:checksumAlgorithm_sha256 ;
 * spdx:checksumValue "hex" ] of a distribution: algorithm and value into
 * the buffers, false when there is none (or it is not usable). */
static bool read_checksum(const Store *st, uint32_t dist, char algorithm[32],
                          char value[160])
{
  Objects sums = objects_of(st, dist, P_CHECKSUM);
  for (const Stmt *sum; (sum = objects_next(&sums));) {
    Objects a = objects_of(st, sum->o, P_ALGORITHM),
            v = objects_of(st, sum->o, P_CHECKSUM_VALUE);
    const Stmt *alg = objects_next(&a), *val = objects_next(&v);
    if (!alg || !val || term_kind(st, val->o) != K_LITERAL) {
      continue;
    }
    /* spdx:checksumAlgorithm_sha256, else an IRI's last segment or a
     * literal as written (lower-cased when set) */
    const char *name = term_value(st, alg->o);
    const char *mark = strstr(name, "checksumAlgorithm_");
    char shown[SHOWN_MAX];
    show_format(mark ? mark + strlen("checksumAlgorithm_") : name, shown);
    snprintf(algorithm, 32, "%s", shown);
    char *hex = trimmed(term_value(st, val->o));
    bool ok = hex && is_hex(hex) && strlen(hex) < 160 && *algorithm;
    if (ok) {
      snprintf(value, 160, "%s", hex);
    }
    free(hex);
    if (ok) {
      return true;
    }
  }
  return false;
}

/* ---- distributions into dumps and skips --------------------------------- */

typedef struct {
  const Store *st;
  const char *base;
  LwSourcePage *page;
  bool oom;
} Extract;

static void shorten(const char *s, char out[SHOWN_MAX])
{
  snprintf(out, SHOWN_MAX, "%s", s);
  if (strlen(s) >= SHOWN_MAX) {
    memcpy(out + SHOWN_MAX - 4, "...", 4);
  }
}

static void skip(Extract *x, LwSourceDataset *ds, const char *url, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));

static void skip(Extract *x, LwSourceDataset *ds, const char *url, const char *fmt, ...)
{
  char reason[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof(reason), fmt, ap);
  va_end(ap);
  if (!lw_source_skip_add(ds, url, "%s", reason)) {
    x->oom = true;
  }
}

/* One URL the distribution names: a dump, or a skip saying why not. */
static void take_url(Extract *x, LwSourceDataset *ds, uint32_t o, const Declared *format,
                     bool via_access_url, const char *algorithm, const char *value)
{
  char *url = url_of(x->st, o, x->base, &x->oom);
  char shown[SHOWN_MAX];
  shorten(term_value(x->st, o), shown);
  if (!url) {
    if (!x->oom) {
      skip(x, ds, NULL, "%s is not a URL",
           term_kind(x->st, o) == K_BLANK ? "a blank node" : shown);
    }
    return;
  }
  if (!is_http_url(url)) {
    skip(x, ds, url, "%s", "not an http(s) URL");
  } else if (format->cls == LW_MEDIA_NOT_RDF) {
    skip(x, ds, url, "format %s is not RDF", format->shown);
  } else if (via_access_url && format->cls != LW_MEDIA_RDF) {
    skip(x, ds, url, "%s",
         "accessURL only, no RDF format declared (a landing page or service)");
  } else {
    LwSourceDump *d = lw_source_dump_add(ds, url,
                                         format->media_type[0] ? format->media_type : NULL,
                                         format->cls != LW_MEDIA_RDF);
    if (!d || (algorithm && !lw_source_dump_set_checksum(d, algorithm, value))) {
      x->oom = true;
    }
  }
  free(url);
}

static void take_distribution(Extract *x, LwSourceDataset *ds, uint32_t dist)
{
  const Store *st = x->st;
  Declared format;
  read_content_format(st, dist, &format);
  char algorithm[32] = "", value[160] = "";
  bool has_sum = read_checksum(st, dist, algorithm, value);
  Pred which = has_object(st, dist, P_DOWNLOAD_URL) ? P_DOWNLOAD_URL : P_ACCESS_URL;
  if (which == P_ACCESS_URL && has_object(st, dist, P_ACCESS_SERVICE)) {
    Objects it = objects_of(st, dist, P_ACCESS_URL);
    const Stmt *s = objects_next(&it);
    bool oom = false;
    char *url = s ? url_of(st, s->o, x->base, &oom) : NULL;
    skip(x, ds, url, "%s", "a data service (dcat:accessService) without a downloadURL");
    x->oom = x->oom || oom;
    free(url);
    return;
  }
  if (!has_object(st, dist, which)) {
    char shown[SHOWN_MAX];
    shorten(term_kind(st, dist) == K_IRI ? term_value(st, dist) : "", shown);
    skip(x, ds, NULL, "a distribution%s%s%s without dcat:downloadURL or dcat:accessURL",
         shown[0] ? " <" : "", shown, shown[0] ? ">" : "");
    return;
  }
  Objects it = objects_of(st, dist, which);
  for (const Stmt *s; (s = objects_next(&it));) {
    take_url(x, ds, s->o, &format, which == P_ACCESS_URL, has_sum ? algorithm : NULL,
             value);
  }
}

/* ---- datasets ----------------------------------------------------------- */

/* dct:title: an untagged or English literal, else the first. */
static const char *title_of(const Store *st, uint32_t ds)
{
  const char *first = NULL;
  Objects it = objects_of(st, ds, P_TITLE);
  for (const Stmt *s; (s = objects_next(&it));) {
    if (term_kind(st, s->o) != K_LITERAL) {
      continue;
    }
    if (s->preferred_tag) {
      return term_value(st, s->o);
    }
    first = first ? first : term_value(st, s->o);
  }
  return first;
}

/* Offers every dct:modified (or dct:issued) of node as a version. */
static void offer_dates(Extract *x, LwSourceDataset *ds, uint32_t node, Pred p)
{
  Objects it = objects_of(x->st, node, p);
  for (const Stmt *s; (s = objects_next(&it));) {
    if (term_kind(x->st, s->o) != K_LITERAL) {
      continue;
    }
    char *date = trimmed(term_value(x->st, s->o));
    if (!date || (*date && !lw_source_dataset_set_version(ds, date))) {
      x->oom = true;
    }
    free(date);
  }
}

/* The greatest dct:modified of the dataset and its distributions, else the
 * greatest dct:issued. */
static void take_version(Extract *x, LwSourceDataset *ds, uint32_t node)
{
  static const Pred dates[] = {P_MODIFIED, P_ISSUED};
  for (size_t k = 0; k < 2 && !ds->version[0] && !x->oom; ++k) {
    offer_dates(x, ds, node, dates[k]);
    Objects it = objects_of(x->st, node, P_DISTRIBUTION);
    for (const Stmt *s; (s = objects_next(&it));) {
      offer_dates(x, ds, s->o, dates[k]);
    }
  }
}

static int compare_strings(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The URLs of a dataset's distributions (downloadURL, else accessURL),
 * sorted, one a line: what identifies a blank-node dataset across fetches. */
static char *url_list(Extract *x, uint32_t node)
{
  char **urls = NULL;
  size_t n = 0, cap = 0;
  Objects dists = objects_of(x->st, node, P_DISTRIBUTION);
  for (const Stmt *d; (d = objects_next(&dists)) && !x->oom;) {
    Pred which = has_object(x->st, d->o, P_DOWNLOAD_URL) ? P_DOWNLOAD_URL : P_ACCESS_URL;
    Objects it = objects_of(x->st, d->o, which);
    for (const Stmt *s; (s = objects_next(&it)) && !x->oom;) {
      char *url = url_of(x->st, s->o, x->base, &x->oom);
      if (url && n == cap) {
        cap = cap ? cap * 2 : 8;
        char **grown = realloc(urls, cap * sizeof(*urls));
        x->oom = x->oom || !grown;
        urls = grown ? grown : urls;
      }
      if (url && !x->oom) {
        urls[n++] = url;
      } else {
        free(url);
      }
    }
  }
  if (n > 1) {
    qsort(urls, n, sizeof(*urls), compare_strings);
  }
  LwBuf list = LW_BUF_INIT;
  for (size_t i = 0; i < n; ++i) {
    if ((i == 0 || strcmp(urls[i], urls[i - 1])) &&
        (lw_buf_append_str(&list, urls[i]) || lw_buf_append_char(&list, '\n'))) {
      x->oom = true;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    free(urls[i]);
  }
  free(urls);
  char *text = lw_buf_steal(&list);
  x->oom = x->oom || !text;
  return text;
}

/* A dataset's id: its IRI; a blank node's label changes from one fetch to
 * the next, so its dct:identifier, else "_:" and the MD5 of its sorted
 * distribution URLs (of its title when it has none). */
static char *dataset_id(Extract *x, uint32_t node)
{
  const Store *st = x->st;
  if (term_kind(st, node) == K_IRI) {
    return strdup(term_value(st, node));
  }
  Objects it = objects_of(st, node, P_IDENTIFIER);
  for (const Stmt *s; (s = objects_next(&it));) {
    char *id = term_kind(st, s->o) == K_BLANK ? strdup("") : trimmed(term_value(st, s->o));
    if (!id || *id) {
      return id;
    }
    free(id);
  }
  char *urls = url_list(x, node);
  if (!urls) {
    return NULL;
  }
  const char *title = title_of(st, node);
  const char *key = *urls || !title ? urls : title;
  char hex[LW_HASH_HEX_LEN + 1], *id = malloc(LW_HASH_HEX_LEN + 3);
  lw_md5_hex(key, strlen(key), hex);
  if (id) {
    snprintf(id, LW_HASH_HEX_LEN + 3, "_:%s", hex);
  }
  free(urls);
  return id;
}

static void take_dataset(Extract *x, uint32_t node)
{
  char *id = dataset_id(x, node);
  LwSourceDataset *ds = id ? lw_source_dataset(x->page, id) : NULL;
  free(id);
  if (!ds) {
    x->oom = true;
    return;
  }
  const char *title = title_of(x->st, node);
  if (title && !ds->title && !lw_source_dataset_set_title(ds, title)) {
    x->oom = true;
  }
  take_version(x, ds, node);
  Objects it = objects_of(x->st, node, P_DISTRIBUTION);
  for (const Stmt *s; (s = objects_next(&it)) && !x->oom;) {
    take_distribution(x, ds, s->o);
  }
}

/* ---- which nodes are datasets, which documents come next ---------------- */

enum { F_DATASET = 1, F_CATALOG = 2 };

typedef struct {
  uint8_t *flags;  /* per term */
  uint32_t *order; /* datasets in document order */
  size_t count;
} Found;

static void add_dataset(Found *f, const Store *st, uint32_t node)
{
  if (term_kind(st, node) == K_LITERAL || (f->flags[node] & F_DATASET)) {
    return;
  }
  f->flags[node] |= F_DATASET;
  f->order[f->count++] = node;
}

/* A link to a dataset or catalogue not described here: a document to read
 * (without its fragment, which names a node in it). */
static void add_next(Extract *x, uint32_t node, const char *link)
{
  bool oom = false;
  char *url = url_of(x->st, node, x->base, &oom);
  if (url && is_http_url(url)) {
    url[strcspn(url, "#")] = '\0';
    size_t self = strcspn(x->base, "#");
    /* a last page's hydra:next to itself, a catalogue's hasPart to itself */
    bool is_self = strlen(url) == self && !strncmp(url, x->base, self);
    oom = !is_self && !lw_source_next_add(x->page, url);
  } else if (url || (!oom && term_kind(x->st, node) == K_LITERAL)) {
    char shown[SHOWN_MAX];
    shorten(url ? url : term_value(x->st, node), shown);
    lw_source_warn(x->page, "%s <%s> is not an http(s) URL, not followed", link, shown);
  }
  free(url);
  x->oom = x->oom || oom;
}

/* A dcat:dataset / dcat:catalog / dct:hasPart object: read here when the
 * document describes it, else next. */
static void follow_link(Extract *x, Found *f, const Stmt *s, const char *link)
{
  const Store *st = x->st;
  if (st->terms[s->o].described) {
    if (s->p == P_DATASET) {
      add_dataset(f, st, s->o);
    }
  } else if (term_kind(st, s->o) != K_BLANK) {
    add_next(x, s->o, link);
  }
}

/* Marks catalogues: typed so, or linking datasets or sub-catalogues. */
static void find_catalogs(const Store *st, Found *f)
{
  for (size_t i = 0; i < st->stmt_count; ++i) {
    const Stmt *s = &st->stmts[i];
    if ((s->p == P_TYPE && type_class(term_value(st, s->o)) == T_CATALOG) ||
        s->p == P_DATASET || s->p == P_CATALOG) {
      f->flags[s->s] |= F_CATALOG;
    }
    if (s->p == P_CATALOG) {
      f->flags[s->o] |= F_CATALOG;
    }
  }
}

/* Walks the statements in document order (the store is not sorted yet). */
static void find_datasets(Extract *x, Found *f)
{
  const Store *st = x->st;
  find_catalogs(st, f);
  for (size_t i = 0; i < st->stmt_count && !x->oom; ++i) {
    const Stmt *s = &st->stmts[i];
    switch (s->p) {
    case P_TYPE:
      if (type_class(term_value(st, s->o)) == T_DATASET) {
        add_dataset(f, st, s->s);
      }
      break;
    case P_DISTRIBUTION:
      add_dataset(f, st, s->s);
      break;
    case P_DATASET:
      follow_link(x, f, s, "dcat:dataset");
      break;
    case P_CATALOG:
      follow_link(x, f, s, "dcat:catalog");
      break;
    case P_HAS_PART:
      if (f->flags[s->s] & F_CATALOG) {
        follow_link(x, f, s, "dct:hasPart");
      }
      break;
    case P_NEXT:
      add_next(x, s->o, "hydra:next");
      break;
    default:
      break;
    }
  }
}

static LwStatus extract(const Reading *r, Store *st, const char *url, LwSourcePage *page,
                        LwError *err)
{
  Extract x = {st, url, page, false};
  Found f = {calloc(st->term_count + 1, 1), calloc(st->term_count + 1, sizeof(uint32_t)),
             0};
  if (f.flags && f.order) {
    find_datasets(&x, &f);
    if (st->stmt_count > 1) {
      qsort(st->stmts, st->stmt_count, sizeof(*st->stmts), by_subject);
    }
  }
  for (size_t i = 0; f.flags && f.order && i < f.count && !x.oom; ++i) {
    take_dataset(&x, f.order[i]);
  }
  bool oom = x.oom || !f.flags || !f.order;
  free(f.flags);
  free(f.order);
  if (oom) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  if (page->dataset_count == 0 && page->next_count == 0) {
    return lw_error_set(err, LW_ERR_FORMAT,
                        "no dcat:Dataset described and no next page named (%llu %s "
                        "statements read)",
                        r->stats.statements, lw_format_name(r->format));
  }
  return LW_OK;
}

LwStatus lw_dcat_parse(const char *data, size_t len, const char *url,
                       const char *media_type, LwSourcePage **out, LwError *err)
{
  *out = NULL;
  if (!url || !lw_uri_is_absolute(url)) {
    return lw_error_set(err, LW_ERR_USAGE,
                        "a DCAT document needs its absolute URL as base");
  }
  if (len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3)) {
    data += 3; /* a BOM says nothing the readers need */
    len -= 3;
  }
  Reading r;
  LwStatus st = read_best(data, len, url, media_type, &r, err);
  LwSourcePage *page = st == LW_OK ? lw_source_page_new() : NULL;
  if (st == LW_OK && !page) {
    st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  if (st == LW_OK) {
    report_syntax(page, &r);
    recover_turtle(data, len, url, &r, page);
    st = extract(&r, &r.store, url, page, err);
  }
  reading_clear(&r);
  if (st != LW_OK) {
    lw_source_page_free(page);
    return st;
  }
  *out = page;
  return LW_OK;
}
