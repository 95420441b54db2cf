/*
 * HTML pages (LW_FORMAT_RDFA, LW_FORMAT_JSONLD_HTML): the page's JSON-LD
 * scripts (JSON-LD 1.1 API §4.1 and §7.3) read by jsonld/, and its RDFa by
 * rdfa/ (rdf_readers/rdf_reader_rdfa.c), both from the same tree of the page
 * read whole (LW_HTML_MAX_BYTES): libxml2's HTML parser for HTML, its XML
 * parser (behind the XML guard) for a page that opens with an XML
 * declaration.
 *
 * The scripts are found in libxml2's HTML tree: every <script> whose type is
 * application/ld+json (parameters and case ignored). Their text is taken as
 * it is: HTML unescapes nothing in a script (&lt; stays &lt;), and comment
 * markers are not stripped, so a script wrapped in <!-- --> is no JSON and
 * is an "invalid script element" (the suite's r014..r017).
 *
 * Blank nodes: the JSON-LD processor labels its blank nodes "b<N>" per
 * document; here they become "gs<K>b<N>" (K the script's number), so that
 * the scripts read as separate documents never share a blank node, and none
 * meets one of the RDFa processor's labels ("g<digit>..." and "r...", see
 * rdfa/rdfa.h).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>
#include <libxml/HTMLparser.h>

#include "base/base.h"
#include "jsonld/jsonld.h"
#include "rdf_readers/rdf_readers.h"
#include "rdfa/rdfa.h"

/* ---- what the page holds ---- */

typedef struct {
  xmlNodePtr *scripts; /* the JSON-LD scripts, in document order */
  size_t count;
  size_t cap;
  xmlNodePtr base;    /* the first <base> with an href, or NULL */
  const char *rdfa;   /* the first RDFa attribute seen, or NULL */
  bool out_of_memory; /* the script list could not grow */
} PageScan;

static bool is_element(xmlNodePtr n, const char *name)
{
  return n->type == XML_ELEMENT_NODE && n->name && !strcasecmp((const char *)n->name, name);
}

/* The attribute's value (xmlFree it), or NULL. */
static char *attribute(xmlNodePtr n, const char *name)
{
  return (char *)xmlGetProp(n, (const xmlChar *)name);
}

/* True for a type attribute naming application/ld+json, with or without
 * parameters ("application/ld+json;profile=..."). */
static bool is_jsonld_type(const char *type)
{
  const char *t = type;
  while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r') {
    ++t;
  }
  size_t n = strlen("application/ld+json");
  if (strncasecmp(t, "application/ld+json", n)) {
    return false;
  }
  t += n;
  while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r') {
    ++t;
  }
  return *t == '\0' || *t == ';';
}

static bool is_jsonld_script(xmlNodePtr n)
{
  if (!is_element(n, "script")) {
    return false;
  }
  char *type = attribute(n, "type");
  bool yes = type && is_jsonld_type(type);
  xmlFree(type);
  return yes;
}

/* rel / rev make RDFa triples when they hold a CURIE or an IRI, or a term of
 * RDFa's initial context (as the guess decides, rdf/format_guess.c). */
static bool rel_is_rdfa(const char *v)
{
  if (strchr(v, ':')) {
    return true;
  }
  static const char *const terms[] = {"license", "describedby", "role"};
  const char *space = " \t\r\n\f";
  for (const char *w = v + strspn(v, space); *w; w += strspn(w, space)) {
    size_t n = strcspn(w, space);
    for (size_t i = 0; i < sizeof(terms) / sizeof(terms[0]); ++i) {
      if (strlen(terms[i]) == n && !strncasecmp(w, terms[i], n)) {
        return true;
      }
    }
    w += n;
  }
  return false;
}

static const char *rdfa_attribute(xmlNodePtr n)
{
  static const char *const attrs[] = {"property", "typeof", "vocab",    "about",
                                      "resource", "prefix", "datatype", "inlist"};
  for (xmlAttrPtr a = n->properties; a; a = a->next) {
    const char *name = (const char *)a->name;
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); ++i) {
      if (!strcasecmp(name, attrs[i])) {
        return attrs[i];
      }
    }
    if (!strcasecmp(name, "rel") || !strcasecmp(name, "rev")) {
      char *v = attribute(n, name);
      bool yes = v && rel_is_rdfa(v);
      xmlFree(v);
      if (yes) {
        return !strcasecmp(name, "rel") ? "rel" : "rev";
      }
    }
  }
  return NULL;
}

static void note_script(PageScan *scan, xmlNodePtr n)
{
  if (scan->count == scan->cap) {
    size_t cap = scan->cap ? 2 * scan->cap : 8;
    xmlNodePtr *grown = realloc(scan->scripts, cap * sizeof(*grown));
    if (!grown) {
      scan->out_of_memory = true;
      return;
    }
    scan->scripts = grown;
    scan->cap = cap;
  }
  scan->scripts[scan->count++] = n;
}

static void note_element(PageScan *scan, xmlNodePtr n)
{
  if (is_jsonld_script(n)) {
    note_script(scan, n);
  } else if (!scan->base && is_element(n, "base") &&
             xmlHasProp(n, (const xmlChar *)"href")) {
    scan->base = n;
  }
  if (!scan->rdfa) {
    scan->rdfa = rdfa_attribute(n);
  }
}

/* Walks the tree in document order without recursion (a hostile page may
 * nest deeply). */
static void scan_page(xmlNodePtr root, PageScan *scan)
{
  for (xmlNodePtr n = root; n; n = lw_rdfa_next_element(root, n)) {
    note_element(scan, n);
  }
}

/* ---- the base IRI ---- */

/* The document URL without its fragment (a new string), or NULL. */
static char *document_url(const char *base_iri)
{
  if (!base_iri) {
    return NULL;
  }
  return strndup(base_iri, strcspn(base_iri, "#"));
}

/* The base for the scripts: <base href> resolved against the document URL,
 * else the document URL (JSON-LD 1.1 API §4.1: the HTML document's base). A
 * new string, or NULL when there is none. */
static char *page_base(const PageScan *scan, const char *doc_url)
{
  char *href = scan->base ? attribute(scan->base, "href") : NULL;
  char *base = NULL;
  if (href && doc_url) {
    base = lw_uri_resolve(doc_url, href);
  } else if (href && lw_uri_is_absolute(href)) {
    base = strdup(href);
  }
  xmlFree(href);
  if (!base && doc_url) {
    base = strdup(doc_url);
  }
  return base;
}

/* ---- one JSON-LD document ---- */

typedef struct {
  LwReadContext *rc;
  unsigned number;  /* the document's number, in its blank node labels */
  unsigned line;    /* the line of the script element; 0: unknown */
  LwLocation at;    /* where the JSON-LD processor says the statement is */
  LwStatus stopped; /* what on_quad returned when it stopped the reading */
  char labels[3][64];
} ScriptRun;

static unsigned page_line(const ScriptRun *run, unsigned line)
{
  return run->line && line ? run->line + line - 1 : 0;
}

/* A blank node of the script: "gs<K>" in front of its label. */
static void rename_blank(ScriptRun *run, int slot, LwTerm *t)
{
  if (t->type != LW_TERM_BLANK) {
    return;
  }
  int n = snprintf(run->labels[slot], sizeof(run->labels[slot]), "gs%u%s", run->number,
                   t->value);
  t->value = run->labels[slot];
  t->len = n > 0 && (size_t)n < sizeof(run->labels[slot]) ? (size_t)n : strlen(t->value);
}

static LwStatus script_quad(void *handle, const LwQuad *quad)
{
  ScriptRun *run = handle;
  LwQuad q = *quad;
  rename_blank(run, 0, &q.subject);
  rename_blank(run, 1, &q.object);
  rename_blank(run, 2, &q.graph);
  LwStatus st = lw_read_emit(run->rc, &q, page_line(run, run->at.line),
                             run->at.line == 1 ? 0 : run->at.column);
  if (st > LW_NOTHING) {
    run->stopped = st;
  }
  return st;
}

static void script_error(void *handle, unsigned line, unsigned column, const char *message)
{
  ScriptRun *run = handle;
  if (run->stopped == LW_OK) {
    lw_read_report(run->rc, page_line(run, line), line == 1 ? 0 : column, "%s", message);
  }
}

/* Reads one JSON-LD document (json, len bytes). A JSON-LD error was
 * reported by the processor and ends only this document; what on_quad
 * returned to stop the reading is returned. */
static LwStatus read_document(ScriptRun *run, const char *json, size_t len,
                              const char *base)
{
  const LwReadOptions *o = run->rc->options;
  LwJsonldOptions jo = {
    .base_iri = base,
    .load = o->load_document,
    .load_handle = o->load_handle,
    .on_quad = script_quad,
    .quad_handle = run,
    .on_error = script_error,
    .error_handle = run,
    .max_depth = o->max_depth,
    .location = &run->at,
  };
  LwError err;
  LwReadStats stats;
  lw_jsonld_to_rdf_buffer(json, len, &jo, &stats, &err);
  return run->stopped;
}

/* ---- the scripts ---- */

/* The script's text as JSON, or NULL with the error reported: the JSON-LD
 * API's "invalid script element". */
static json_t *script_json(LwReadContext *rc, xmlNodePtr script, const char *text)
{
  json_error_t jerr;
  json_t *doc = json_loadb(text, strlen(text), JSON_ALLOW_NUL, &jerr);
  if (!doc) {
    unsigned line = script->line > 0 ? (unsigned)script->line : 0;
    lw_read_report(rc, line && jerr.line > 0 ? line + (unsigned)jerr.line - 1 : 0, 0,
                   "invalid script element: line %d, column %d of the script: %s",
                   jerr.line, jerr.column, jerr.text);
  }
  return doc;
}

/* Reads one script as its own document. */
static LwStatus read_script(LwReadContext *rc, xmlNodePtr script, unsigned number,
                            const char *base)
{
  char *text = (char *)xmlNodeGetContent(script);
  json_t *doc = text ? script_json(rc, script, text) : NULL;
  LwStatus st = LW_OK;
  if (doc) {
    ScriptRun run = {.rc = rc, .number = number, .line = (unsigned)script->line};
    st = read_document(&run, text, strlen(text), base);
  }
  json_decref(doc);
  xmlFree(text);
  return st;
}

/* Appends a script's document to all: its elements when it is an array
 * (JSON-LD 1.1 API §4.1, extractAllScripts). */
static void append_document(json_t *all, json_t *doc)
{
  if (json_is_array(doc)) {
    json_array_extend(all, doc);
  } else {
    json_array_append(all, doc);
  }
}

/* extractAllScripts: the scripts' documents as one array document. */
static LwStatus read_scripts_as_array(LwReadContext *rc, const PageScan *scan,
                                      const char *base)
{
  json_t *all = json_array();
  if (!all) {
    return lw_error_set(rc->err, LW_ERR_NOMEM, "out of memory reading JSON-LD scripts");
  }
  for (size_t i = 0; i < scan->count; ++i) {
    char *text = (char *)xmlNodeGetContent(scan->scripts[i]);
    json_t *doc = text ? script_json(rc, scan->scripts[i], text) : NULL;
    if (doc) {
      append_document(all, doc);
    }
    json_decref(doc);
    xmlFree(text);
  }
  char *json = json_dumps(all, JSON_COMPACT | JSON_ENCODE_ANY);
  json_decref(all);
  if (!json) {
    return lw_error_set(rc->err, LW_ERR_NOMEM, "out of memory reading JSON-LD scripts");
  }
  ScriptRun run = {.rc = rc};
  LwStatus st = read_document(&run, json, strlen(json), base);
  free(json);
  return st;
}

/* The element whose id is fragment, or NULL. */
static xmlNodePtr element_by_id(xmlNodePtr root, const char *fragment)
{
  for (xmlNodePtr n = root; n; n = lw_rdfa_next_element(root, n)) {
    char *id = attribute(n, "id");
    bool hit = id && !strcmp(id, fragment);
    xmlFree(id);
    if (hit) {
      return n;
    }
  }
  return NULL;
}

/* A document URL with a fragment names one script (JSON-LD 1.1 API §4.1);
 * the API's "loading document failed" when it names none. */
static LwStatus read_script_by_id(LwReadContext *rc, xmlNodePtr root, const char *fragment,
                                  const char *base)
{
  xmlNodePtr n = element_by_id(root, fragment);
  if (!n || !is_jsonld_script(n)) {
    lw_read_report(rc, n && n->line > 0 ? (unsigned)n->line : 0, 0,
                   "loading document failed: the fragment #%s names %s", fragment,
                   !n                         ? "no element of the page"
                   : !is_element(n, "script") ? "an element that is no script"
                                              : "a script that is not application/ld+json");
    return LW_OK;
  }
  return read_script(rc, n, 0, base);
}

/* Whether the fragment selects the script to read: always in the API's
 * modes; in lodwash's own only when it names a JSON-LD script, since a
 * harvested page's URL often carries a resource's fragment ("#me"). */
static bool fragment_selects(LwReadContext *rc, xmlNodePtr root, const char *fragment)
{
  if (rc->options->html_scripts != LW_HTML_SCRIPTS_EACH) {
    return true;
  }
  xmlNodePtr n = element_by_id(root, fragment);
  return n && is_jsonld_script(n);
}

static LwStatus read_scripts(LwReadContext *rc, xmlNodePtr root, const PageScan *scan,
                             const char *base)
{
  const char *hash = rc->options->base_iri ? strchr(rc->options->base_iri, '#') : NULL;
  if (hash && hash[1] && fragment_selects(rc, root, hash + 1)) {
    return read_script_by_id(rc, root, hash + 1, base);
  }
  switch (rc->options->html_scripts) {
  case LW_HTML_SCRIPTS_FIRST:
    return scan->count ? read_script(rc, scan->scripts[0], 0, base) : LW_OK;
  case LW_HTML_SCRIPTS_ALL:
    return scan->count ? read_scripts_as_array(rc, scan, base) : LW_OK;
  case LW_HTML_SCRIPTS_EACH:
    break;
  }
  LwStatus st = LW_OK;
  for (size_t i = 0; i < scan->count && st == LW_OK; ++i) {
    st = read_script(rc, scan->scripts[i], (unsigned)i, base);
  }
  return st;
}

/* ---- the page ---- */

/* Appends the rest of in to page. LW_ERR_LIMIT past LW_HTML_MAX_BYTES. */
static LwStatus read_whole_page(FILE *in, LwBuf *page, LwError *err)
{
  for (;;) {
    if (lw_buf_reserve(page, 65536) != LW_OK) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory reading HTML");
    }
    size_t n = fread(page->data + page->len, 1, 65536, in);
    page->len += n;
    if (page->len > LW_HTML_MAX_BYTES) {
      return lw_error_set(err, LW_ERR_LIMIT,
                          "HTML page larger than %zu MiB (it is parsed whole)",
                          LW_HTML_MAX_BYTES >> 20);
    }
    if (n == 0) {
      if (ferror(in)) {
        return lw_error_set(err, LW_ERR_IO, "read error");
      }
      return LW_OK;
    }
  }
}

/* An XML page (XHTML, SVG) goes past the XML guard first: a DTD may declare
 * only plain internal entities, and their expansion is budgeted. */
static LwStatus guard_xml_page(LwReadContext *rc, LwBuf *page)
{
  LwXmlGuard *guard = lw_xml_guard_new(rc->max_depth);
  if (!guard) {
    return lw_error_set(rc->err, LW_ERR_NOMEM, "out of memory reading XML");
  }
  LwStatus st = lw_xml_guard_prolog(guard, page->data, page->len, true, rc->err);
  if (st == LW_OK) {
    st = lw_xml_guard_feed(guard, page->data, page->len, 0, rc->err);
  } else if (st == LW_NOTHING) {
    st = LW_OK; /* no root element: the parser says so */
  }
  lw_xml_guard_free(guard);
  return st;
}

/* The page's JSON-LD scripts, then its RDFa: when guessed as RDFa, or when
 * its tree holds RDFa attributes. */
static LwStatus read_page(LwReadContext *rc, xmlDocPtr doc)
{
  xmlNodePtr root = xmlDocGetRootElement(doc);
  PageScan scan = {0};
  scan_page(root, &scan);
  char *doc_url = document_url(rc->options->base_iri);
  char *base = page_base(&scan, doc_url);
  LwStatus st = scan.out_of_memory
                  ? lw_error_set(rc->err, LW_ERR_NOMEM, "out of memory reading HTML")
                  : read_scripts(rc, root, &scan, base);
  if (st == LW_OK && (rc->options->format == LW_FORMAT_RDFA || scan.rdfa)) {
    st = lw_rdf_read_rdfa(doc, rc);
  }
  free(base);
  free(doc_url);
  free(scan.scripts);
  return st;
}

LwStatus lw_rdf_read_html(FILE *in, LwReadContext *rc)
{
  LwBuf page = {0};
  LwStatus st = read_whole_page(in, &page, rc->err);
  if (st == LW_OK && lw_rdfa_is_xml(page.data ? page.data : "", page.len)) {
    st = guard_xml_page(rc, &page);
  }
  xmlDocPtr doc = NULL;
  if (st == LW_OK) {
    doc = lw_rdf_rdfa_parse(&page, rc);
    st = doc ? LW_OK : rc->err->status;
  }
  if (st == LW_OK) {
    st = read_page(rc, doc);
  }
  xmlFreeDoc(doc);
  lw_buf_free(&page);
  return st;
}
