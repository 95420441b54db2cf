/*
 * XML sitemaps (sitemaps.org 0.9), gzip or not, and the semantic sitemap
 * extension (DERI 2007, as the LOD Laundromat read them): a sitemap index
 * names more sitemaps (page->next); a urlset's <url> is a landing page
 * (one dump, guessed: RDFa or JSON-LD in HTML); an <sc:dataset> names a
 * dataset's dumps and SPARQL endpoints.
 *
 * The document comes from anywhere on the web: libxml2 reads it without
 * the network, without loading DTDs or external entities and without
 * substituting entities, under its own limits on entity amplification;
 * text is taken from text nodes only, so no entity's content (internal or
 * external) ever ends up in a URL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zlib.h>

#include "sources/sources.h"

/* sitemaps.org: at most 50 MiB uncompressed; a little more is allowed for
 * a generator that counts differently. */
#define SITEMAP_MAX_INFLATED (50u * 1024u * 1024u + 1024u * 1024u)

static const char NS_SITEMAP[] = "http://www.sitemaps.org/schemas/sitemap/0.9";
static const char NS_SC[] = "http://sw.deri.org/2007/07/sitemapextension/scschema.xsd";

/* ---- gzip --------------------------------------------------------------- */

static bool is_gzip(const char *data, size_t len)
{
  return len >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b;
}

/* One inflate step into out (grown as needed, at most the cap). */
static LwStatus inflate_step(z_stream *zs, LwBuf *out, LwError *err)
{
  if (lw_buf_reserve(out, 64 * 1024) != LW_OK) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory inflating the sitemap");
  }
  /* Never more than one byte over the cap: a bomb stops there. */
  size_t room = out->cap - out->len - 1, left = SITEMAP_MAX_INFLATED + 1 - out->len;
  zs->next_out = (Bytef *)out->data + out->len;
  zs->avail_out = (uInt)(room < left ? room : left);
  int z = inflate(zs, Z_NO_FLUSH);
  out->len = out->cap - 1 - zs->avail_out;
  out->data[out->len] = '\0';
  if (out->len > SITEMAP_MAX_INFLATED) {
    return lw_error_set(err, LW_ERR_LIMIT,
                        "the gzip sitemap inflates to more than %u bytes (sitemaps.org: "
                        "50 MiB at most)",
                        SITEMAP_MAX_INFLATED);
  }
  if (z == Z_STREAM_END && zs->avail_in > 0) {
    inflateReset(zs); /* another gzip member follows (gzip -c a b) */
    return LW_OK;
  }
  if (z != Z_OK && z != Z_STREAM_END && !(z == Z_BUF_ERROR && zs->avail_in > 0)) {
    return lw_error_set(err, LW_ERR_SYNTAX, "broken gzip: %s",
                        zs->msg ? zs->msg : "truncated");
  }
  return z == Z_STREAM_END ? LW_NOTHING : LW_OK;
}

/* The inflated bytes of a gzip body in *out. */
static LwStatus gunzip(const char *data, size_t len, LwBuf *out, LwError *err)
{
  if (len > 0xffffffffu) {
    return lw_error_set(err, LW_ERR_LIMIT, "the gzip sitemap is larger than 4 GiB");
  }
  z_stream zs;
  memset(&zs, 0, sizeof(zs));
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
    return lw_error_set(err, LW_ERR_NOMEM, "cannot start inflating the sitemap");
  }
  zs.next_in = (Bytef *)data;
  zs.avail_in = (uInt)len;
  LwStatus st;
  do {
    st = inflate_step(&zs, out, err);
  } while (st == LW_OK);
  inflateEnd(&zs);
  return st == LW_NOTHING ? LW_OK : st;
}

/* ---- reading the XML ---------------------------------------------------- */

/* The text of el's own text children, trimmed; entity references (and
 * anything else) are left out. Caller frees; NULL when empty. */
static char *element_text(const xmlNode *el)
{
  LwBuf b = LW_BUF_INIT;
  for (const xmlNode *c = el->children; c; c = c->next) {
    if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content &&
        lw_buf_append_str(&b, (const char *)c->content) != LW_OK) {
      lw_buf_free(&b);
      return NULL;
    }
  }
  const char *s = b.data ? b.data : "";
  size_t start = strspn(s, " \t\r\n"), end = b.len;
  while (end > start && strchr(" \t\r\n", s[end - 1])) {
    --end;
  }
  char *text = end > start ? strndup(s + start, end - start) : NULL;
  lw_buf_free(&b);
  return text;
}

static bool has_entity_reference(const xmlNode *el)
{
  for (const xmlNode *c = el->children; c; c = c->next) {
    if (c->type == XML_ENTITY_REF_NODE) {
      return true;
    }
  }
  return false;
}

static bool is_element(const xmlNode *n, const char *ns, const char *name)
{
  if (n->type != XML_ELEMENT_NODE || strcmp((const char *)n->name, name) != 0) {
    return false;
  }
  const char *href = n->ns ? (const char *)n->ns->href : NULL;
  /* Sitemap elements: the 0.9 namespace, or none at all (sloppy
   * generators); extension elements: their own namespace only. */
  return ns == NS_SITEMAP ? !href || !strcmp(href, NS_SITEMAP) : href && !strcmp(href, ns);
}

/* The text of parent's first child element ns:name, or NULL. */
static char *child_text(const xmlNode *parent, const char *ns, const char *name)
{
  for (const xmlNode *c = parent->children; c; c = c->next) {
    if (is_element(c, ns, name)) {
      return element_text(c);
    }
  }
  return NULL;
}

static bool is_http(const char *s)
{
  return !strncasecmp(s, "http://", 7) || !strncasecmp(s, "https://", 8);
}

/* A location as an absolute URL: resolved against the sitemap's URL.
 * NULL (with a warning) when it cannot be resolved. Caller frees. */
static char *absolute_location(LwSourcePage *page, const char *url, const char *loc)
{
  if (lw_uri_is_absolute(loc)) {
    return strdup(loc);
  }
  char *abs = url ? lw_uri_resolve(url, loc) : NULL;
  if (!abs) {
    lw_source_warn(page, "relative location %s cannot be resolved", loc);
  }
  return abs;
}

/* The http(s) URL of el's ns:name child (resolved); NULL, with a warning
 * for what is there but not usable, otherwise. Caller frees. */
static char *child_http_url(LwSourcePage *page, const char *url, const xmlNode *el,
                            const char *ns, const char *name)
{
  char *loc = child_text(el, ns, name);
  char *abs = loc ? absolute_location(page, url, loc) : NULL;
  if (abs && !is_http(abs)) {
    lw_source_warn(page, "location %s is not http(s): ignored", abs);
    free(abs);
    abs = NULL;
  }
  free(loc);
  return abs;
}

/* ---- sitemap index ------------------------------------------------------ */

static LwStatus read_index(LwSourcePage *page, const char *url, const xmlNode *root)
{
  for (const xmlNode *c = root->children; c; c = c->next) {
    if (!is_element(c, NS_SITEMAP, "sitemap")) {
      continue;
    }
    char *loc = child_http_url(page, url, c, NS_SITEMAP, "loc");
    bool ok = !loc || lw_source_next_add(page, loc);
    free(loc);
    if (!ok) {
      return LW_ERR_NOMEM;
    }
  }
  return LW_OK;
}

/* ---- urlset: pages ------------------------------------------------------ */

/* A <url>: a landing page, fetched and guessed (RDFa, JSON-LD in HTML). */
static LwStatus read_url(LwSourcePage *page, const char *url, const xmlNode *el)
{
  char *loc = child_http_url(page, url, el, NS_SITEMAP, "loc");
  if (!loc) {
    return LW_OK;
  }
  char *lastmod = child_text(el, NS_SITEMAP, "lastmod");
  LwSourceDataset *ds = lw_source_dataset(page, loc);
  bool ok = ds && lw_source_dataset_set_version(ds, lastmod) &&
            lw_source_dump_add(ds, loc, NULL, true);
  free(lastmod);
  free(loc);
  return ok ? LW_OK : LW_ERR_NOMEM;
}

/* ---- urlset: semantic sitemap datasets ---------------------------------- */

/* The dataset's id: its sc:datasetURI, else its first dump, else its
 * first endpoint. Caller frees; NULL when it names none of them. */
static char *semantic_id(LwSourcePage *page, const char *url, const xmlNode *el)
{
  char *id = child_text(el, NS_SC, "datasetURI");
  if (id) {
    char *abs = absolute_location(page, url, id);
    free(id);
    return abs;
  }
  static const char *const fallbacks[] = {"dataDumpLocation", "sparqlEndpointLocation"};
  for (size_t i = 0; i < 2; ++i) {
    char *loc = child_text(el, NS_SC, fallbacks[i]);
    if (loc) {
      char *abs = absolute_location(page, url, loc);
      free(loc);
      return abs;
    }
  }
  return NULL;
}

/* One sc:dataDumpLocation or sc:sparqlEndpointLocation of ds. The
 * extension says nothing of a dump's format (RDF/XML, N-Triples, gzip or
 * not): every dump is fetched and its format guessed. */
static bool add_access(LwSourcePage *page, LwSourceDataset *ds, const char *url,
                       const xmlNode *c)
{
  bool dump = is_element(c, NS_SC, "dataDumpLocation");
  if (!dump && !is_element(c, NS_SC, "sparqlEndpointLocation")) {
    return true;
  }
  char *text = element_text(c);
  char *abs = text ? absolute_location(page, url, text) : NULL;
  bool ok = true;
  if (abs && !dump) {
    ok = lw_source_skip_add(ds, abs,
                            "SPARQL endpoint: name it as a sparql: provider to harvest it");
  } else if (abs && !is_http(abs)) {
    ok = lw_source_skip_add(ds, abs, "dump location is not http(s)");
  } else if (abs) {
    ok = lw_source_dump_add(ds, abs, NULL, true) != NULL;
  }
  free(text);
  free(abs);
  return ok;
}

static LwStatus read_semantic_dataset(LwSourcePage *page, const char *url,
                                      const xmlNode *el)
{
  char *id = semantic_id(page, url, el);
  if (!id) {
    lw_source_warn(page,
                   "an sc:dataset without a datasetURI, dump or endpoint was ignored");
    return LW_OK;
  }
  LwSourceDataset *ds = lw_source_dataset(page, id);
  free(id);
  char *label = child_text(el, NS_SC, "datasetLabel");
  char *lastmod = child_text(el, NS_SITEMAP, "lastmod");
  if (!lastmod) {
    lastmod = child_text(el, NS_SC, "lastmod");
  }
  bool ok = ds && (!label || lw_source_dataset_set_title(ds, label)) &&
            lw_source_dataset_set_version(ds, lastmod);
  for (const xmlNode *c = el->children; ok && c; c = c->next) {
    ok = add_access(page, ds, url, c);
  }
  free(label);
  free(lastmod);
  return ok ? LW_OK : LW_ERR_NOMEM;
}

static LwStatus read_urlset(LwSourcePage *page, const char *url, const xmlNode *root)
{
  for (const xmlNode *c = root->children; c; c = c->next) {
    LwStatus st = LW_OK;
    if (is_element(c, NS_SITEMAP, "url")) {
      st = read_url(page, url, c);
    } else if (is_element(c, NS_SC, "dataset")) {
      st = read_semantic_dataset(page, url, c);
    }
    if (st != LW_OK) {
      return st;
    }
  }
  return LW_OK;
}

/* ---- the document ------------------------------------------------------- */

/* Warns once when some location was written with an entity reference
 * (whose content is never used). */
static void warn_entities(LwSourcePage *page, const xmlNode *n)
{
  for (; n; n = n->next) {
    if (n->type == XML_ELEMENT_NODE && has_entity_reference(n)) {
      lw_source_warn(page, "entity references in <%s> were ignored", (const char *)n->name);
      return;
    }
    if (n->type == XML_ELEMENT_NODE) {
      warn_entities(page, n->children);
    }
  }
}

static LwStatus read_document(LwSourcePage *page, const char *url, xmlDoc *doc,
                              LwError *err)
{
  const xmlNode *root = xmlDocGetRootElement(doc);
  LwStatus st;
  if (root && is_element(root, NS_SITEMAP, "sitemapindex")) {
    st = read_index(page, url, root);
  } else if (root && is_element(root, NS_SITEMAP, "urlset")) {
    st = read_urlset(page, url, root);
  } else {
    const char *href = root && root->ns ? (const char *)root->ns->href : "";
    return lw_error_set(err, LW_ERR_FORMAT,
                        "not a sitemap: the root element is <%s%s%s>, not a sitemaps.org "
                        "urlset or sitemapindex",
                        href, *href ? " " : "", root ? (const char *)root->name : "");
  }
  if (st != LW_OK) {
    return lw_error_set(err, st, "out of memory reading the sitemap");
  }
  warn_entities(page, root->children);
  return LW_OK;
}

/* data without a UTF-8 byte order mark, and without blanks before an XML
 * declaration (both seen on real sites; libxml2 refuses the latter). */
static const char *skip_preamble(const char *data, size_t *len)
{
  if (*len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3)) {
    data += 3;
    *len -= 3;
  }
  size_t blanks = 0;
  while (blanks < *len && data[blanks] && strchr(" \t\r\n", data[blanks])) {
    ++blanks;
  }
  if (*len - blanks >= 5 && !memcmp(data + blanks, "<?xml", 5)) {
    data += blanks;
    *len -= blanks;
  }
  return data;
}

/* Parses the XML: no network, no DTD loading, no entity substitution (and
 * XML_PARSE_HUGE off, so libxml2's limits stand). */
static LwStatus parse_xml(const char *data, size_t len, const char *url, xmlDoc **doc,
                          LwError *err)
{
  if (len > (size_t)0x7fffffff) {
    return lw_error_set(err, LW_ERR_LIMIT, "the sitemap is larger than 2 GiB");
  }
  xmlInitParser(); /* once per process; libxml2 would do it lazily anyway */
  xmlParserCtxt *ctxt = xmlNewParserCtxt();
  if (!ctxt) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory starting the XML parser");
  }
  *doc = xmlCtxtReadMemory(ctxt, data, (int)len, url, NULL,
                           XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  LwStatus st = LW_OK;
  if (!*doc || !ctxt->wellFormed) {
    const xmlError *e = xmlCtxtGetLastError(ctxt);
    st = lw_error_set(err, LW_ERR_SYNTAX, "not XML: %s (line %d)",
                      e && e->message ? e->message : "unreadable", e ? e->line : 0);
    /* libxml2's message ends with a newline */
    char *nl = err ? strchr(err->message, '\n') : NULL;
    if (nl) {
      memmove(nl, nl + 1, strlen(nl));
    }
    xmlFreeDoc(*doc);
    *doc = NULL;
  }
  xmlFreeParserCtxt(ctxt);
  return st;
}

LwStatus lw_sitemap_parse(const char *data, size_t len, const char *url, LwSourcePage **out,
                          LwError *err)
{
  *out = NULL;
  LwBuf inflated = LW_BUF_INIT;
  if (is_gzip(data, len)) {
    LwStatus st = gunzip(data, len, &inflated, err);
    if (st != LW_OK) {
      lw_buf_free(&inflated);
      return st;
    }
    data = inflated.data ? inflated.data : "";
    len = inflated.len;
  }
  data = skip_preamble(data, &len);
  xmlDoc *doc = NULL;
  LwStatus st = parse_xml(data, len, url, &doc, err);
  lw_buf_free(&inflated);
  if (st != LW_OK) {
    return st;
  }
  LwSourcePage *page = lw_source_page_new();
  st = page ? read_document(page, url, doc, err)
            : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  xmlFreeDoc(doc);
  if (st != LW_OK) {
    lw_source_page_free(page);
    return st;
  }
  *out = page;
  return LW_OK;
}
