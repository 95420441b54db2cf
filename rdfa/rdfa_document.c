/*
 * A page into libxml2's tree (HTML or XML parser, no network, no DTD, no
 * entity substitution), its host language and base IRI, and the processor
 * run over it.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>

#include "rdfa/rdfa_private.h"

/* libxml2 may recover from many errors in one page: the first are enough. */
#define MAX_XML_ERRORS 100

bool lw_rdfa_is_xml(const char *head, size_t len)
{
  size_t i = 0;
  if (len >= 3 && !memcmp(head, "\xEF\xBB\xBF", 3)) {
    i = 3;
  }
  while (i < len && strchr(" \t\r\n", head[i])) {
    ++i;
  }
  return len - i >= 5 && !memcmp(head + i, "<?xml", 5);
}

/* ---- parsing ---- */

typedef struct {
  const LwRdfaOptions *options;
  LwReadStats *stats;
  unsigned reported;
} ParseErrors;

static void on_xml_error(void *user, xmlErrorPtr e)
{
  xmlParserCtxtPtr ctxt = user;
  ParseErrors *pe = ctxt ? ctxt->_private : NULL;
  if (!pe || !e || e->level < XML_ERR_ERROR) {
    return;
  }
  if (pe->stats) {
    pe->stats->errors++;
  }
  if (pe->reported++ >= MAX_XML_ERRORS || !pe->options->on_error) {
    return;
  }
  char message[512];
  snprintf(message, sizeof(message), "%s", e->message ? e->message : "XML error");
  size_t n = strlen(message);
  while (n && (message[n - 1] == '\n' || message[n - 1] == ' ')) {
    message[--n] = '\0';
  }
  pe->options->on_error(pe->options->error_handle, e->line > 0 ? (unsigned)e->line : 0,
                        e->int2 > 0 ? (unsigned)e->int2 : 0, message);
}

static xmlDocPtr parse_xml(const char *data, int len, ParseErrors *pe)
{
  xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
  if (!ctxt) {
    return NULL;
  }
  ctxt->_private = pe;
  ctxt->sax->serror = on_xml_error;
  ctxt->vctxt.error = NULL;
  /* no network, no DTD loading, no entity substitution: XML_PARSE_NOENT and
   * XML_PARSE_DTDLOAD stay off */
  xmlDocPtr doc = xmlCtxtReadMemory(ctxt, data, len, NULL, NULL,
                                    XML_PARSE_NONET | XML_PARSE_RECOVER |
                                      XML_PARSE_BIG_LINES | XML_PARSE_NOWARNING);
  xmlFreeParserCtxt(ctxt);
  return doc;
}

static xmlDocPtr parse_html(const char *data, int len)
{
  /* UTF-8 whatever a <meta> says: the unpack stage recodes every data file
   * to UTF-8 before it is parsed */
  return htmlReadMemory(data, len, NULL, "UTF-8",
                        HTML_PARSE_RECOVER | HTML_PARSE_NONET | HTML_PARSE_NOERROR |
                          HTML_PARSE_NOWARNING | HTML_PARSE_IGNORE_ENC);
}

xmlDocPtr lw_rdfa_parse(const char *data, size_t len, const LwRdfaOptions *options,
                        LwReadStats *stats, LwError *err)
{
  if (len > LW_RDFA_MAX_BYTES || len > INT_MAX) {
    lw_error_set(err, LW_ERR_LIMIT, "page larger than %zu MiB", LW_RDFA_MAX_BYTES >> 20);
    return NULL;
  }
  ParseErrors pe = {.options = options, .stats = stats};
  xmlDocPtr doc = lw_rdfa_is_xml(data, len) ? parse_xml(data, (int)len, &pe)
                                            : parse_html(data, (int)len);
  if (doc && !xmlDocGetRootElement(doc)) {
    xmlFreeDoc(doc);
    doc = NULL;
  }
  if (!doc) {
    lw_error_set(err, LW_ERR_SYNTAX, "no document element: not a page that can be read");
  }
  return doc;
}

/* ---- the host language ---- */

static bool contains(const xmlChar *s, const char *what)
{
  return s && strstr((const char *)s, what);
}

LwRdfaHost lw_rdfa_host_of(xmlDocPtr doc)
{
  if (doc->type == XML_HTML_DOCUMENT_NODE) {
    return LW_RDFA_HOST_HTML;
  }
  xmlNodePtr root = xmlDocGetRootElement(doc);
  if (!root || strcasecmp((const char *)root->name, "html")) {
    return LW_RDFA_HOST_XML;
  }
  xmlDtdPtr dtd = xmlGetIntSubset(doc);
  xmlChar *version = xmlGetNoNsProp(root, (const xmlChar *)"version");
  bool xhtml1 = (dtd && contains(dtd->ExternalID, "XHTML+RDFa")) ||
                contains(version, "XHTML+RDFa");
  xmlFree(version);
  return xhtml1 ? LW_RDFA_HOST_XHTML1 : LW_RDFA_HOST_HTML;
}

/* ---- the base IRI ---- */

xmlNodePtr lw_rdfa_next_element(xmlNodePtr root, xmlNodePtr n)
{
  do {
    if ((n->type == XML_ELEMENT_NODE || n == root) && n->children) {
      n = n->children;
      continue;
    }
    while (n && n != root && !n->next) {
      n = n->parent;
    }
    n = n && n != root ? n->next : NULL;
  } while (n && n->type != XML_ELEMENT_NODE);
  return n;
}

/* The first element named name with attribute attr, or NULL. */
static xmlNodePtr find_element(xmlNodePtr root, const char *name, const char *attr)
{
  for (xmlNodePtr n = root; n; n = lw_rdfa_next_element(root, n)) {
    if (!strcasecmp((const char *)n->name, name) && xmlHasProp(n, (const xmlChar *)attr)) {
      return n;
    }
  }
  return NULL;
}

/* The document's URL without its fragment, overridden in (X)HTML by the
 * first <base href> (resolved against it); XML (SVG, ...) has xml:base
 * instead, on any element (rdfa_walk.c). A new string, or NULL. */
static char *document_base(xmlDocPtr doc, LwRdfaHost host, const char *document_url)
{
  char *url = document_url ? strdup(document_url) : NULL;
  xmlNodePtr root = xmlDocGetRootElement(doc);
  xmlNodePtr base = host != LW_RDFA_HOST_XML ? find_element(root, "base", "href") : NULL;
  xmlChar *href = base ? xmlGetProp(base, (const xmlChar *)"href") : NULL;
  char *resolved = NULL;
  if (href && url) {
    resolved = lw_uri_resolve(url, (const char *)href);
  } else if (href && lw_uri_is_absolute((const char *)href)) {
    resolved = strdup((const char *)href);
  }
  xmlFree(href);
  if (resolved) {
    free(url);
    url = strndup(resolved, strcspn(resolved, "#"));
    free(resolved);
  }
  return url;
}

/* Whether the page may use property copying: a typeof naming a Pattern.
 * Then the triples are held until the end (rdfa_copy.c). */
static bool any_pattern(xmlNodePtr root)
{
  for (xmlNodePtr n = root; n; n = lw_rdfa_next_element(root, n)) {
    xmlChar *t = xmlGetNoNsProp(n, (const xmlChar *)"typeof");
    bool yes = contains(t, "Pattern");
    xmlFree(t);
    if (yes) {
      return true;
    }
  }
  return false;
}

/* ---- processing ---- */

LwStatus lw_rdfa_process(xmlDocPtr doc, const LwRdfaOptions *options, LwReadStats *stats,
                         LwError *err)
{
  xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
  if (!root || !options || !options->on_quad) {
    return lw_error_set(err, LW_ERR_USAGE, "lw_rdfa_process: no document or no sink");
  }
  RdfaRun run = {.options = options, .stats = stats, .err = err, .stop = LW_OK};
  run.host = options->host != LW_RDFA_HOST_AUTO ? options->host : lw_rdfa_host_of(doc);
  run.document_url =
    options->base_iri ? strndup(options->base_iri, strcspn(options->base_iri, "#")) : NULL;
  run.base = document_base(doc, run.host, run.document_url);
  run.buffer = any_pattern(root);
  LwStatus st = rdfa_walk(&run, root);
  if (st == LW_OK) {
    st = rdfa_flush(&run);
  }
  rdfa_run_free(&run);
  return st;
}
