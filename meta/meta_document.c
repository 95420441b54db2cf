/*
 * A document: a downloaded dump (dcat:downloadURL) or an archive entry
 * (dct:isPartOf its archive), as its seed record tells it: size and
 * checksums of its bytes (spdx), media type and guessed format, encoding,
 * the last HTTP hop (status, final URL after redirects), the cleaner's
 * counts and first errors (line and column), and the clean file it gave.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "meta/meta_out.h"
#include "queue/seed_http.h"

const char *const lw_meta_seed_fields[] = {
  "status",       "uri",     "provider",   "harvest",       "parent",
  "http",         "content", "archive",    "encoding",      "format",
  "content_type", "triples", "duplicates", "syntax_errors", "literal_errors",
  "clean",        "error",   "errors",     "processed",     "sha256"};
const size_t lw_meta_seed_field_count = sizeof(lw_meta_seed_fields) /
                                        sizeof(lw_meta_seed_fields[0]);

static void checksum(LwMetaOut *o, const char *node, const char *algorithm,
                     const char *value)
{
  if (!value || !*value) {
    return;
  }
  char sum[LW_META_IRI_MAX];
  snprintf(sum, sizeof(sum), "%s#%s", node, algorithm);
  lw_meta_iri(o, node, NS_SPDX "checksum", sum);
  lw_meta_iri(o, sum, NS_RDF "type", NS_SPDX "Checksum");
  char alg[128];
  snprintf(alg, sizeof(alg), NS_SPDX "checksumAlgorithm_%s", algorithm);
  lw_meta_iri(o, sum, NS_SPDX "algorithm", alg);
  lw_meta_lit(o, sum, NS_SPDX "checksumValue", value, NS_XSD "hexBinary");
}

/* content: {hash (MD5), number_of_bytes, ...} (files/files.h). */
static void describe_content(LwMetaOut *o, const char *d, const char *content,
                             const char *sha256)
{
  json_t *c = json_loads(content ? content : "{}", 0, NULL);
  json_t *bytes = json_object_get(c, "number_of_bytes");
  if (json_is_integer(bytes)) {
    char text[32];
    snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(bytes));
    lw_meta_lit(o, d, NS_DCAT "byteSize", text, NS_XSD "nonNegativeInteger");
  }
  checksum(o, d, "md5", json_string_value(json_object_get(c, "hash")));
  const char *sha = json_string_value(json_object_get(c, "sha256"));
  checksum(o, d, "sha256", sha ? sha : sha256);
  json_decref(c);
}

/* The media type as an IANA IRI: "text/turtle; charset=x" -> .../text/turtle. */
static void describe_media_type(LwMetaOut *o, const char *d, const char *type)
{
  if (!type || !*type) {
    return;
  }
  char iri[512] = "https://www.iana.org/assignments/media-types/";
  size_t n = strlen(iri);
  for (const char *p = type; *p && *p != ';' && n + 1 < sizeof(iri); ++p) {
    if (!isspace((unsigned char)*p)) {
      iri[n++] = (char)tolower((unsigned char)*p);
    }
  }
  iri[n] = '\0';
  if (strchr(iri + 45, '/') && !strpbrk(iri, "<>\"{}|\\^`")) {
    lw_meta_iri(o, d, NS_DCAT "mediaType", iri);
  }
}

/* The last hop of the HTTP exchange: its status and the URL it came from
 * (a hop without one asked for the seed's own URI: queue/seed_http.h). */
static void describe_http(LwMetaOut *o, const char *d, const char *http, const char *uri)
{
  json_t *hops = json_loads(http ? http : "[]", 0, NULL);
  size_t n = json_array_size(hops);
  if (n > 0) {
    json_t *last = json_array_get(hops, n - 1);
    json_t *status = json_object_get(last, "status");
    if (json_is_integer(status)) {
      lw_meta_int(o, d, NS_HTTP "statusCodeValue", (long long)json_integer_value(status));
    }
    lw_meta_iri(o, d, NS_LW "finalURL", lw_seed_http_hop_uri(last, uri));
    lw_meta_int(o, d, NS_LW "redirects", (long long)n - 1);
  }
  json_decref(hops);
}

/* The first errors the cleaner kept: [{kind, line, column, message}]. */
static void describe_errors(LwMetaOut *o, const char *d, const char *errors)
{
  json_t *list = json_loads(errors ? errors : "[]", 0, NULL);
  size_t i;
  json_t *e;
  json_array_foreach(list, i, e) {
    char node[LW_META_IRI_MAX];
    snprintf(node, sizeof(node), "%s#error%zu", d, i + 1);
    lw_meta_iri(o, d, NS_LW "firstError", node);
    lw_meta_iri(o, node, NS_RDF "type", NS_LW "Error");
    lw_meta_lit(o, node, NS_LW "errorKind", json_string_value(json_object_get(e, "kind")),
                NULL);
    json_t *line = json_object_get(e, "line"), *column = json_object_get(e, "column");
    if (json_is_integer(line) && json_integer_value(line) > 0) {
      lw_meta_int(o, node, NS_LW "line", (long long)json_integer_value(line));
    }
    if (json_is_integer(column) && json_integer_value(column) > 0) {
      lw_meta_int(o, node, NS_LW "column", (long long)json_integer_value(column));
    }
    lw_meta_lit(o, node, NS_RDFS "comment",
                json_string_value(json_object_get(e, "message")), NULL);
  }
  json_decref(list);
}

/* The clean file: named by the MD5 of its lines (clean/clean.h). */
static void describe_clean(LwMetaOut *o, const char *d, const char *clean)
{
  if (!clean || strlen(clean) != LW_HASH_HEX_LEN) {
    return;
  }
  char node[LW_META_IRI_MAX], path[128];
  lw_meta_node(o, node, "clean", clean);
  lw_meta_iri(o, d, NS_LW "cleanFile", node);
  lw_meta_iri(o, node, NS_RDF "type", NS_LW "CleanFile");
  lw_meta_iri(o, node, NS_PROV "wasDerivedFrom", d);
  snprintf(path, sizeof(path), "clean/%.2s/%.2s/%s.nq.gz", clean, clean + 2, clean);
  lw_meta_lit(o, node, NS_LW "file", path, NULL);
  lw_meta_iri(o, node, NS_DCT "format", "http://www.w3.org/ns/formats/N-Quads");
  checksum(o, node, "md5", clean);
}

static void describe_origin(LwMetaOut *o, const char *d, const char *const *v,
                            bool harvest_kept)
{
  const char *archive = v[LW_MS_ARCHIVE];
  if (v[LW_MS_PARENT] && *v[LW_MS_PARENT]) {
    char parent[LW_META_IRI_MAX];
    lw_meta_node(o, parent, "document", v[LW_MS_PARENT]);
    lw_meta_iri(o, d, NS_DCT "isPartOf", parent);
    json_t *a = json_loads(archive ? archive : "{}", 0, NULL);
    lw_meta_lit(o, d, NS_DCT "title", json_string_value(json_object_get(a, "path")), NULL);
    json_decref(a);
  } else if (v[LW_MS_URI]) {
    lw_meta_iri(o, d, NS_RDF "type", NS_DCAT "Distribution");
    lw_meta_iri(o, d, NS_DCAT "downloadURL", v[LW_MS_URI]);
  }
  char g[LW_META_IRI_MAX];
  snprintf(g, sizeof(g), "%s/%s", o->graph_base, v[LW_MS_PROVIDER]);
  lw_meta_iri(o, d, NS_VOID "inDataset", g);
  if (harvest_kept) {
    char h[LW_META_IRI_MAX];
    lw_meta_node(o, h, "harvest", v[LW_MS_HARVEST]);
    lw_meta_iri(o, h, NS_PROV "used", d);
  }
}

void lw_meta_describe_document(LwMetaOut *o, const char *hash, const char *const *v,
                               bool harvest_kept)
{
  char d[LW_META_IRI_MAX];
  lw_meta_node(o, d, "document", hash);
  lw_meta_iri(o, d, NS_RDF "type", NS_PROV "Entity");
  lw_meta_lit(o, d, NS_DCT "identifier", hash, NULL);
  describe_origin(o, d, v, harvest_kept);
  lw_meta_lit(o, d, NS_LW "status", v[LW_MS_STATUS], NULL);
  describe_http(o, d, v[LW_MS_HTTP], v[LW_MS_URI]);
  describe_content(o, d, v[LW_MS_CONTENT], v[LW_MS_SHA256]);
  describe_media_type(o, d, v[LW_MS_CONTENT_TYPE]);
  lw_meta_lit(o, d, NS_DCT "format", v[LW_MS_FORMAT], NULL);
  lw_meta_lit(o, d, NS_CNT "characterEncoding", v[LW_MS_ENCODING], NULL);
  lw_meta_count(o, d, NS_VOID "triples", v[LW_MS_TRIPLES]);
  lw_meta_count(o, d, NS_LW "duplicates", v[LW_MS_DUPLICATES]);
  lw_meta_count(o, d, NS_LW "syntaxErrors", v[LW_MS_SYNTAX_ERRORS]);
  lw_meta_count(o, d, NS_LW "literalErrors", v[LW_MS_LITERAL_ERRORS]);
  if (v[LW_MS_ERROR] && *v[LW_MS_ERROR]) {
    lw_meta_lit(o, d, NS_LW "error", v[LW_MS_ERROR], NULL);
  }
  describe_errors(o, d, v[LW_MS_ERRORS]);
  describe_clean(o, d, v[LW_MS_CLEAN]);
  lw_meta_time_ms(o, d, NS_DCT "modified", v[LW_MS_PROCESSED]);
  o->stats.documents++;
}
