/*
 * Format guessing from the first few KB of content.
 *
 * The guess runs in three steps:
 *   1. not text at all: empty, magic numbers (PDF, archives, images),
 *      NUL bytes, control characters, broken UTF-8;
 *   2. the first significant character (after a BOM, whitespace and
 *      comments) picks a family: markup ('<?', '<!', '<tag ...'), JSON
 *      ('{"', '[{', ...) or the Turtle family (everything else, including
 *      '<iri>' and '[ ... ]');
 *   3. within a family, a scanner over the head collects evidence: the
 *      root element and RDFa attributes for markup; for the Turtle family a
 *      small tokenizer that counts statements of three and four plain terms
 *      (N-Triples, N-Quads), and notes the first construct that only Turtle
 *      (directives, ';', ',', 'a', prefixed names, multi-line statements,
 *      ...) or only TriG (graph blocks, GRAPH) allows.
 *
 * Hints (media type, extension) only choose between formats the content
 * fits: N-Triples content named .ttl is Turtle, Turtle content named .trig
 * is TriG, but N-Triples named .rdf stays N-Triples.
 */
#include "rdf/rdf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define RDF_NS "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

/* ---- small helpers -------------------------------------------------- */

static void set_reason(LwGuessInfo *info, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));

static void set_reason(LwGuessInfo *info, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(info->reason, sizeof(info->reason), fmt, ap);
  va_end(ap);
}

static bool is_space(int c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_alpha(int c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(int c)
{
  return c >= '0' && c <= '9';
}

/* Case-insensitive prefix test within the head. */
static bool starts_with_ci(const char *s, size_t len, const char *word)
{
  size_t n = strlen(word);
  return len >= n && !strncasecmp(s, word, n);
}

static bool starts_with(const char *s, size_t len, const char *word)
{
  size_t n = strlen(word);
  return len >= n && !memcmp(s, word, n);
}

/* memmem without _GNU_SOURCE. */
static const char *find(const char *s, size_t len, const char *needle)
{
  size_t n = strlen(needle);
  if (n == 0 || len < n) {
    return NULL;
  }
  for (size_t i = 0; i + n <= len; ++i) {
    if (s[i] == needle[0] && !memcmp(s + i, needle, n)) {
      return s + i;
    }
  }
  return NULL;
}

static const char *find_ci(const char *s, size_t len, const char *needle)
{
  size_t n = strlen(needle);
  if (n == 0 || len < n) {
    return NULL;
  }
  for (size_t i = 0; i + n <= len; ++i) {
    if (!strncasecmp(s + i, needle, n)) {
      return s + i;
    }
  }
  return NULL;
}

/* ---- hints ---------------------------------------------------------- */

/* Both hints: the media type's first, then the extension's. Each is used
 * only where the content fits it; the first that fits wins. */
typedef struct {
  LwFormat media;
  LwFormat ext;
} Hints;

#define FMT_BIT(f) (1u << (unsigned)(f))
#define TURTLE_FAMILY                                                                      \
  (FMT_BIT(LW_FORMAT_NTRIPLES) | FMT_BIT(LW_FORMAT_NQUADS) | FMT_BIT(LW_FORMAT_TURTLE) |   \
   FMT_BIT(LW_FORMAT_TRIG))

/* The first hint among the formats in mask, or LW_FORMAT_UNKNOWN. */
static LwFormat pick(Hints h, unsigned mask)
{
  if (h.media != LW_FORMAT_UNKNOWN && (mask & FMT_BIT(h.media))) {
    return h.media;
  }
  if (h.ext != LW_FORMAT_UNKNOWN && (mask & FMT_BIT(h.ext))) {
    return h.ext;
  }
  return LW_FORMAT_UNKNOWN;
}

static const struct {
  const char *name;
  LwFormat format;
} media_types[] = {
  {"text/turtle", LW_FORMAT_TURTLE},
  {"application/turtle", LW_FORMAT_TURTLE},
  {"application/x-turtle", LW_FORMAT_TURTLE},
  {"text/n3", LW_FORMAT_TURTLE},
  {"text/rdf+n3", LW_FORMAT_TURTLE},
  {"application/n-triples", LW_FORMAT_NTRIPLES},
  {"text/n-triples", LW_FORMAT_NTRIPLES},
  {"application/n-quads", LW_FORMAT_NQUADS},
  {"text/n-quads", LW_FORMAT_NQUADS},
  {"text/x-nquads", LW_FORMAT_NQUADS},
  {"text/nquads", LW_FORMAT_NQUADS},
  {"application/trig", LW_FORMAT_TRIG},
  {"application/x-trig", LW_FORMAT_TRIG},
  {"application/rdf+xml", LW_FORMAT_RDFXML},
  {"application/xml", LW_FORMAT_RDFXML},
  {"text/xml", LW_FORMAT_RDFXML},
  {"text/rdf", LW_FORMAT_RDFXML},
  {"application/ld+json", LW_FORMAT_JSONLD},
  {"application/rdf+json", LW_FORMAT_RDFJSON},
  {"application/json", LW_FORMAT_JSONLD},
  {"text/html", LW_FORMAT_RDFA},
  {"application/xhtml+xml", LW_FORMAT_RDFA},
};

LwFormat lw_guess_from_media_type(const char *media_type)
{
  if (!media_type) {
    return LW_FORMAT_UNKNOWN;
  }
  while (is_space((unsigned char)*media_type)) {
    ++media_type;
  }
  size_t n = strcspn(media_type, "; \t");
  for (size_t i = 0; i < sizeof(media_types) / sizeof(media_types[0]); ++i) {
    if (strlen(media_types[i].name) == n &&
        !strncasecmp(media_type, media_types[i].name, n)) {
      return media_types[i].format;
    }
  }
  return LW_FORMAT_UNKNOWN;
}

static const struct {
  const char *ext;
  LwFormat format;
} extensions[] = {
  {"ttl", LW_FORMAT_TURTLE},        {"turtle", LW_FORMAT_TURTLE},
  {"n3", LW_FORMAT_TURTLE},         {"nt", LW_FORMAT_NTRIPLES},
  {"ntriples", LW_FORMAT_NTRIPLES}, {"nq", LW_FORMAT_NQUADS},
  {"nquads", LW_FORMAT_NQUADS},     {"trig", LW_FORMAT_TRIG},
  {"rdf", LW_FORMAT_RDFXML},        {"owl", LW_FORMAT_RDFXML},
  {"rdfs", LW_FORMAT_RDFXML},       {"xml", LW_FORMAT_RDFXML},
  {"rdfxml", LW_FORMAT_RDFXML},     {"jsonld", LW_FORMAT_JSONLD},
  {"json", LW_FORMAT_JSONLD},       {"html", LW_FORMAT_RDFA},
  {"htm", LW_FORMAT_RDFA},          {"xhtml", LW_FORMAT_RDFA},
  {"rj", LW_FORMAT_RDFJSON},
};

static const char *const compression_exts[] = {"gz",   "bz2", "xz", "zst", "lz",
                                               "lzma", "z",   "br", NULL};

LwFormat lw_guess_from_filename(const char *filename)
{
  if (!filename) {
    return LW_FORMAT_UNKNOWN;
  }
  /* The last path segment, without a URI's query and fragment. */
  size_t end = strcspn(filename, "?#");
  size_t start = 0;
  for (size_t i = 0; i < end; ++i) {
    if (filename[i] == '/' || filename[i] == '\\') {
      start = i + 1;
    }
  }
  /* Look through compression extensions, then match the one before. */
  for (int rounds = 0; rounds < 3; ++rounds) {
    size_t dot = end;
    while (dot > start && filename[dot - 1] != '.') {
      --dot;
    }
    if (dot <= start + 1) {
      return LW_FORMAT_UNKNOWN; /* no extension, or a dot file */
    }
    const char *ext = filename + dot;
    size_t n = end - dot;
    bool compressed = false;
    for (size_t i = 0; compression_exts[i]; ++i) {
      if (strlen(compression_exts[i]) == n && !strncasecmp(ext, compression_exts[i], n)) {
        compressed = true;
      }
    }
    if (!compressed) {
      for (size_t i = 0; i < sizeof(extensions) / sizeof(extensions[0]); ++i) {
        if (strlen(extensions[i].ext) == n && !strncasecmp(ext, extensions[i].ext, n)) {
          return extensions[i].format;
        }
      }
      return LW_FORMAT_UNKNOWN;
    }
    end = dot - 1;
  }
  return LW_FORMAT_UNKNOWN;
}

/* ---- step 1: is it text? -------------------------------------------- */

static const struct {
  const char *magic;
  size_t len;
  const char *what;
} magics[] = {
  {"%PDF-", 5, "looks like PDF"},
  {"PK\x03\x04", 4, "looks like a ZIP archive (unpack it first)"},
  {"\x1f\x8b", 2, "gzip-compressed content (unpack it first)"},
  {"BZh", 3, "bzip2-compressed content (unpack it first)"},
  {"\xfd"
   "7zXZ",
   5, "xz-compressed content (unpack it first)"},
  {"\x28\xb5\x2f\xfd", 4, "zstd-compressed content (unpack it first)"},
  {"7z\xbc\xaf\x27\x1c", 6, "looks like a 7-Zip archive (unpack it first)"},
  {"Rar!", 4, "looks like a RAR archive (unpack it first)"},
  {"\x89PNG", 4, "looks like a PNG image"},
  {"GIF8", 4, "looks like a GIF image"},
  {"\xff\xd8\xff", 3, "looks like a JPEG image"},
  {"%!PS", 4, "looks like PostScript"},
  {"{\\rtf", 5, "looks like RTF"},
  {"\xd0\xcf\x11\xe0", 4, "looks like a Microsoft Office document"},
  {"\x7f"
   "ELF",
   4, "looks like an executable"},
  {"SQLite format 3", 15, "looks like an SQLite database"},
};

/* Returns what the content is when a magic number says so, else NULL. */
static const char *magic(const unsigned char *s, size_t len)
{
  for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); ++i) {
    if (len >= magics[i].len && !memcmp(s, magics[i].magic, magics[i].len)) {
      return magics[i].what;
    }
  }
  if (len >= 2 && ((s[0] == 0xFF && s[1] == 0xFE) || (s[0] == 0xFE && s[1] == 0xFF))) {
    return "UTF-16 text (not recoded to UTF-8)";
  }
  return NULL;
}

/* Returns a reason when head does not look like UTF-8 text, else NULL. A
 * UTF-8 sequence cut at the end of the head is not held against it. Turtle
 * allows raw control characters (even NUL) in literals, so the caller
 * still lets a clean Turtle-family parse win over this verdict. */
static const char *binary(const unsigned char *s, size_t len)
{
  size_t controls = 0, invalid = 0, nuls = 0;
  for (size_t i = 0; i < len;) {
    unsigned char c = s[i];
    if (c == 0) {
      ++nuls;
    }
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7F) {
        ++controls;
      }
      ++i;
      continue;
    }
    size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    if (c > 0xF4) {
      n = 0;
    }
    size_t k = 1;
    while (n && k < n && i + k < len && (s[i + k] & 0xC0) == 0x80) {
      ++k;
    }
    if (n && k == n) {
      i += n;
    } else if (n && i + k == len) {
      break; /* cut at the end of the head */
    } else {
      ++invalid;
      ++i;
    }
  }
  if (nuls > 0) {
    return "binary content (NUL bytes)";
  }
  if (controls > 0) {
    return "binary content (control characters)";
  }
  if (invalid > 8 && invalid * 50 > len) {
    return "binary content (not UTF-8 text)";
  }
  return NULL;
}

/* ---- step 3a: markup ------------------------------------------------ */

static const char *const html_tags[] = {
  "html", "head", "body",   "title", "meta",    "link",    "div",
  "p",    "span", "a",      "table", "ul",      "ol",      "h1",
  "h2",   "h3",   "script", "style", "section", "article", "header",
  "nav",  "main", "footer", "br",    "img",     "form",    NULL,
};

static bool is_html_tag(const char *name, size_t n)
{
  for (size_t i = 0; html_tags[i]; ++i) {
    if (strlen(html_tags[i]) == n && !strncasecmp(name, html_tags[i], n)) {
      return true;
    }
  }
  return false;
}

static bool is_name_char(int c)
{
  return is_alpha(c) || is_digit(c) || c == '_' || c == ':' || c == '-' || c == '.' ||
         c >= 0x80;
}

/* True when the text at s (starting with '<') is certainly markup, not an
 * IRI: a declaration, a comment, a processing instruction, or a tag with
 * attributes or self-closing. *maybe is set for a bare '<name>'. */
static bool certainly_markup(const char *s, size_t len, bool *maybe)
{
  *maybe = false;
  if (len < 2) {
    return false;
  }
  if (s[1] == '?' || s[1] == '!') {
    return true;
  }
  if (!is_alpha((unsigned char)s[1]) && s[1] != '_') {
    return false;
  }
  size_t i = 1;
  while (i < len && is_name_char((unsigned char)s[i])) {
    ++i;
  }
  if (i == len) {
    return false;
  }
  if (is_space((unsigned char)s[i]) || (s[i] == '/' && i + 1 < len && s[i + 1] == '>')) {
    return true;
  }
  *maybe = s[i] == '>';
  return false;
}

/* Skips a construct that starts at s[i] == '<' and ends with end_token;
 * returns the index after it, or len. */
static size_t skip_past(const char *s, size_t len, size_t i, const char *end_token)
{
  const char *e = find(s + i, len - i, end_token);
  return e ? (size_t)(e - s) + strlen(end_token) : len;
}

/* Skips a DOCTYPE, with an internal subset in brackets whose declarations
 * may hold quoted '>' and ']'. */
static size_t skip_doctype(const char *s, size_t len, size_t i)
{
  char quote = 0;
  int brackets = 0;
  for (; i < len; ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[') {
      ++brackets;
    } else if (c == ']') {
      --brackets;
    } else if (c == '>' && brackets <= 0) {
      return i + 1;
    }
  }
  return len;
}

/* RDFa attributes that plain HTML does not use. */
static const char *const rdfa_attrs[] = {
  "property", "typeof", "vocab", "about", "resource", "prefix", "datatype", "inlist", NULL,
};

/* rel/rev make RDFa triples when they hold a CURIE or IRI, or a term of
 * RDFa's initial context (describedby, license, role). */
static bool rel_is_rdfa(const char *v, size_t n)
{
  if (memchr(v, ':', n)) {
    return true;
  }
  static const char *const terms[] = {"license", "describedby", "role", NULL};
  for (size_t i = 0; i < n;) {
    while (i < n && is_space((unsigned char)v[i])) {
      ++i;
    }
    size_t start = i;
    while (i < n && !is_space((unsigned char)v[i])) {
      ++i;
    }
    for (size_t t = 0; terms[t]; ++t) {
      if (strlen(terms[t]) == i - start && !strncasecmp(v + start, terms[t], i - start)) {
        return true;
      }
    }
  }
  return false;
}

typedef struct {
  const char *rdfa;   /* the first RDFa attribute seen, or NULL */
  bool microdata;     /* itemscope/itemprop seen */
  bool jsonld_script; /* <script type="application/ld+json"> seen */
} HtmlScan;

/* Reads the attributes of the tag whose name ends at s[i]; returns the
 * index after the tag. */
static size_t scan_attributes(const char *s, size_t len, size_t i, HtmlScan *hs,
                              bool is_script)
{
  while (i < len) {
    while (i < len && is_space((unsigned char)s[i])) {
      ++i;
    }
    if (i >= len) {
      return len;
    }
    if (s[i] == '>') {
      return i + 1;
    }
    if (s[i] == '/') {
      ++i;
      continue;
    }
    size_t name = i;
    while (i < len && !is_space((unsigned char)s[i]) && s[i] != '=' && s[i] != '>' &&
           s[i] != '/') {
      ++i;
    }
    size_t name_len = i - name;
    while (i < len && is_space((unsigned char)s[i])) {
      ++i;
    }
    const char *value = NULL;
    size_t value_len = 0;
    if (i < len && s[i] == '=') {
      ++i;
      while (i < len && is_space((unsigned char)s[i])) {
        ++i;
      }
      if (i < len && (s[i] == '"' || s[i] == '\'')) {
        char q = s[i++];
        value = s + i;
        while (i < len && s[i] != q) {
          ++i;
        }
        value_len = (size_t)(s + i - value);
        if (i < len) {
          ++i;
        }
      } else {
        value = s + i;
        while (i < len && !is_space((unsigned char)s[i]) && s[i] != '>') {
          ++i;
        }
        value_len = (size_t)(s + i - value);
      }
    }
    for (size_t a = 0; rdfa_attrs[a] && !hs->rdfa; ++a) {
      if (strlen(rdfa_attrs[a]) == name_len &&
          !strncasecmp(s + name, rdfa_attrs[a], name_len)) {
        hs->rdfa = rdfa_attrs[a];
      }
    }
    if (!hs->rdfa && value && name_len == 3 &&
        (!strncasecmp(s + name, "rel", 3) || !strncasecmp(s + name, "rev", 3)) &&
        rel_is_rdfa(value, value_len)) {
      hs->rdfa = !strncasecmp(s + name, "rel", 3) ? "rel" : "rev";
    }
    if (name_len >= 8 && (!strncasecmp(s + name, "itemscope", name_len) ||
                          !strncasecmp(s + name, "itemprop", name_len))) {
      hs->microdata = true;
    }
    if (is_script && value && name_len == 4 && !strncasecmp(s + name, "type", 4) &&
        value_len >= 19 && !strncasecmp(value, "application/ld+json", 19)) {
      hs->jsonld_script = true;
    }
  }
  return len;
}

/* Walks the tags of an HTML document looking for RDFa attributes; skips
 * comments and the content of script and style elements. */
static void scan_html(const char *s, size_t len, size_t i, HtmlScan *hs)
{
  while (i < len && !hs->rdfa) {
    const char *lt = memchr(s + i, '<', len - i);
    if (!lt) {
      return;
    }
    i = (size_t)(lt - s);
    if (starts_with(s + i, len - i, "<!--")) {
      i = skip_past(s, len, i + 4, "-->");
      continue;
    }
    if (i + 1 >= len || !is_alpha((unsigned char)s[i + 1])) {
      ++i;
      continue;
    }
    size_t name = i + 1;
    size_t j = name;
    while (j < len && is_name_char((unsigned char)s[j])) {
      ++j;
    }
    bool script = (j - name == 6 && !strncasecmp(s + name, "script", 6));
    bool style = (j - name == 5 && !strncasecmp(s + name, "style", 5));
    i = scan_attributes(s, len, j, hs, script);
    if (script || style) {
      const char *close = find_ci(s + i, len - i, script ? "</script" : "</style");
      i = close ? (size_t)(close - s) : len;
    }
  }
}

static LwFormat guess_markup(const char *s, size_t len, size_t i, Hints h,
                             LwGuessInfo *info, bool cut)
{
  bool html = false;
  bool doctype_rdf = false;
  /* The prolog: XML declaration, processing instructions, comments,
   * DOCTYPE, whitespace. */
  for (;;) {
    while (i < len && is_space((unsigned char)s[i])) {
      ++i;
    }
    if (starts_with(s + i, len - i, "<?")) {
      i = skip_past(s, len, i + 2, "?>");
    } else if (starts_with(s + i, len - i, "<!--")) {
      i = skip_past(s, len, i + 4, "-->");
    } else if (starts_with_ci(s + i, len - i, "<!DOCTYPE")) {
      size_t j = i + 9;
      while (j < len && is_space((unsigned char)s[j])) {
        ++j;
      }
      size_t n = 0;
      while (j + n < len && is_name_char((unsigned char)s[j + n])) {
        ++n;
      }
      if (n == 4 && !strncasecmp(s + j, "html", 4)) {
        html = true;
      } else if (n >= 3 && !strncmp(s + j + n - 3, "RDF", 3) &&
                 (n == 3 || s[j + n - 4] == ':')) {
        doctype_rdf = true;
      }
      i = skip_doctype(s, len, i + 9);
    } else {
      break;
    }
  }
  if (i >= len) {
    info->partial = true;
    if (html) {
      set_reason(info, "HTML without RDFa attributes (head ended in the prolog)");
      return LW_FORMAT_UNKNOWN;
    }
    if (find(s, len, RDF_NS) || doctype_rdf) {
      set_reason(
        info, "XML prolog naming the RDF namespace (head ended before the root element)");
      return LW_FORMAT_RDFXML;
    }
    set_reason(info, "XML or HTML prolog only, no root element in the head");
    return LW_FORMAT_UNKNOWN;
  }
  /* The root element. */
  size_t name = i + 1, j = name;
  while (j < len && is_name_char((unsigned char)s[j])) {
    ++j;
  }
  const char *root = s + name;
  size_t root_len = j - name;
  const char *colon = memchr(root, ':', root_len);
  const char *local = colon ? colon + 1 : root;
  size_t local_len = root_len - (size_t)(local - root);
  if (s[i] != '<' || root_len == 0) {
    set_reason(info, "markup without a root element");
    return LW_FORMAT_UNKNOWN;
  }
  if (!html && local_len == 3 && !memcmp(local, "RDF", 3)) {
    set_reason(info, "XML with root element <%.*s>", (int)root_len, root);
    return LW_FORMAT_RDFXML;
  }
  if (!html && is_html_tag(root, root_len)) {
    html = true;
  }
  if (!html && find(s, len, "http://www.w3.org/1999/xhtml") && local_len == 4 &&
      !strncasecmp(local, "html", 4)) {
    html = true;
  }
  if (html) {
    HtmlScan hs = {NULL, false, false};
    scan_html(s, len, i, &hs);
    if (hs.rdfa) {
      set_reason(info, "HTML with RDFa attributes (%s=)", hs.rdfa);
      return LW_FORMAT_RDFA;
    }
    if (hs.jsonld_script) {
      /* the reader still reads RDFa attributes found further in */
      set_reason(info, "HTML with a JSON-LD script (application/ld+json)");
      return LW_FORMAT_JSONLD_HTML;
    }
    info->partial = cut;
    char where[48] = "";
    if (cut) {
      snprintf(where, sizeof(where), " in the first %zu bytes", len);
    }
    set_reason(info, "HTML without RDFa attributes%s%s",
               hs.microdata ? " (microdata only)" : "", where);
    return LW_FORMAT_UNKNOWN;
  }
  /* XML formats that declare the RDF namespace but are not RDF/XML. */
  static const struct {
    const char *root, *ns, *what;
  } others[] = {
    {"Ontology", "\"http://www.w3.org/2002/07/owl#\"", "OWL/XML (not RDF/XML)"},
    {"TriX", "http://www.w3.org/2004/03/trix/trix-1/", "TriX (not supported)"},
    {"sparql", "http://www.w3.org/2005/sparql-results#", "SPARQL query results, not RDF"},
    {"svg", "http://www.w3.org/2000/svg", "an SVG image (its RDF metadata is not a dump)"},
  };
  for (size_t k = 0; k < sizeof(others) / sizeof(others[0]); ++k) {
    if (!colon && strlen(others[k].root) == root_len &&
        !memcmp(root, others[k].root, root_len) && find(s, len, others[k].ns)) {
      set_reason(info, "%s", others[k].what);
      return LW_FORMAT_UNKNOWN;
    }
  }
  if (find(s, len, RDF_NS) || doctype_rdf) {
    set_reason(info, "XML with the RDF namespace (root element <%.*s>)", (int)root_len,
               root);
    return LW_FORMAT_RDFXML;
  }
  if (pick(h, FMT_BIT(LW_FORMAT_RDFXML))) {
    /* RDF/XML need not have rdf:RDF nor use the RDF namespace at all. */
    info->hint_used = true;
    set_reason(info, "XML without the RDF namespace (root element <%.*s>), RDF/XML by hint",
               (int)root_len, root);
    return LW_FORMAT_RDFXML;
  }
  info->partial = cut;
  set_reason(info, "XML without the RDF namespace (root element <%.*s>)", (int)root_len,
             root);
  return LW_FORMAT_UNKNOWN;
}

/* ---- step 3b: JSON -------------------------------------------------- */

/* After '{' or '[' at s[i]: does JSON follow (rather than TriG's '{ <s> ...'
 * or Turtle's '[ :p :o ]')? */
static bool looks_like_json(const char *s, size_t len, size_t i)
{
  char open = s[i++];
  while (i < len && is_space((unsigned char)s[i])) {
    ++i;
  }
  if (i >= len) {
    return false;
  }
  char c = s[i];
  if (open == '{') {
    return c == '"' || c == '}';
  }
  if (c == '{' || c == '"' || c == '-' || is_digit((unsigned char)c) || c == '[') {
    return true;
  }
  if (c == ']') {
    /* '[]' alone is an empty JSON array; '[] :p :o .' is Turtle. */
    for (++i; i < len; ++i) {
      if (!is_space((unsigned char)s[i])) {
        return false;
      }
    }
    return true;
  }
  static const char *const words[] = {"true", "false", "null", NULL};
  for (size_t w = 0; words[w]; ++w) {
    size_t n = strlen(words[w]);
    if (starts_with(s + i, len - i, words[w]) &&
        (i + n == len || memchr(" \t\r\n,]", s[i + n], 6))) {
      return true;
    }
  }
  return false;
}

static size_t skip_json_space(const char *s, size_t len, size_t i)
{
  while (i < len && is_space((unsigned char)s[i])) {
    ++i;
  }
  return i;
}

/* A JSON string at s[*i] ('"'): its raw bytes (escapes left as they are)
 * in *str / *n, *i moved past it; false when the head ends first. */
static bool json_string_at(const char *s, size_t len, size_t *i, const char **str,
                           size_t *n)
{
  size_t j = *i + 1;
  while (j < len && s[j] != '"') {
    j += s[j] == '\\' ? 2 : 1;
  }
  if (j >= len) {
    return false;
  }
  *str = s + *i + 1;
  *n = j - *i - 1;
  *i = j + 1;
  return true;
}

/* Skips white space, then expects c; false when something else follows. */
static bool json_expect(const char *s, size_t len, size_t *i, char c)
{
  *i = skip_json_space(s, len, *i);
  if (*i >= len || s[*i] != c) {
    return false;
  }
  ++*i;
  return true;
}

/* An RDF/JSON subject or predicate key: "_:label", or an absolute IRI. */
static bool rdfjson_key(const char *k, size_t n, bool subject)
{
  if (subject && n > 2 && !memcmp(k, "_:", 2)) {
    return true;
  }
  size_t i = 0;
  while (i < n && (is_alpha((unsigned char)k[i]) ||
                   (i > 0 && (is_digit((unsigned char)k[i]) || k[i] == '+' || k[i] == '-' ||
                              k[i] == '.')))) {
    ++i;
  }
  return i > 0 && i < n && k[i] == ':';
}

/* RDF/JSON's shape at the start of the document ('{' at s[i]): a subject
 * key holding an object whose first key is a predicate IRI holding an
 * array whose first element's first key is one of the Note's (type, value,
 * lang, datatype). JSON-LD never looks so: its keys are keywords or terms
 * and its values are not {type, value}. */
static bool rdfjson_shape(const char *s, size_t len, size_t i)
{
  const char *k;
  size_t n;
  if (!json_expect(s, len, &i, '{') || (i = skip_json_space(s, len, i)) >= len ||
      s[i] != '"' || !json_string_at(s, len, &i, &k, &n) || !rdfjson_key(k, n, true) ||
      !json_expect(s, len, &i, ':') || !json_expect(s, len, &i, '{') ||
      (i = skip_json_space(s, len, i)) >= len || s[i] != '"' ||
      !json_string_at(s, len, &i, &k, &n) || !rdfjson_key(k, n, false) ||
      !json_expect(s, len, &i, ':') || !json_expect(s, len, &i, '[') ||
      !json_expect(s, len, &i, '{') || (i = skip_json_space(s, len, i)) >= len ||
      s[i] != '"' || !json_string_at(s, len, &i, &k, &n)) {
    return false;
  }
  static const char *const keys[] = {"type", "value", "lang", "datatype"};
  for (size_t j = 0; j < sizeof(keys) / sizeof(keys[0]); ++j) {
    if (strlen(keys[j]) == n && !memcmp(k, keys[j], n)) {
      return true;
    }
  }
  return false;
}

static LwFormat guess_json(const char *s, size_t len, size_t first, Hints h,
                           LwGuessInfo *info)
{
  if (rdfjson_shape(s, len, first)) {
    set_reason(info, "RDF/JSON: subject, predicate IRI, array of {type, value} objects");
    return LW_FORMAT_RDFJSON;
  }
  static const char *const keywords[] = {"\"@context\"", "\"@id\"", "\"@graph\"",
                                         "\"@type\"", NULL};
  for (size_t k = 0; keywords[k]; ++k) {
    if (find(s, len, keywords[k])) {
      set_reason(info, "JSON with %s", keywords[k]);
      return LW_FORMAT_JSONLD;
    }
  }
  if (s[first] == '{' && pick(h, FMT_BIT(LW_FORMAT_RDFJSON))) {
    info->hint_used = true;
    set_reason(info, "JSON (no JSON-LD keyword in the head), RDF/JSON by hint");
    return LW_FORMAT_RDFJSON;
  }
  set_reason(info, "JSON (no JSON-LD keyword in the head)");
  return LW_FORMAT_JSONLD;
}

/* ---- step 3c: the Turtle family ------------------------------------- */

typedef struct {
  const char *s;
  size_t len;
  size_t pos;
  size_t line;
  bool cut; /* the head ended inside a token */
  /* evidence */
  size_t nt_triples; /* statements of 3 plain terms on one line */
  size_t nt_quads;   /* statements of 4 plain terms on one line */
  size_t statements; /* all statements ended by '.' */
  size_t tokens;
  const char *turtle; /* the first Turtle-only construct, or NULL */
  size_t turtle_line;
  bool turtle_strong; /* not only relative IRIs */
  const char *trig;   /* the first TriG-only construct, or NULL */
  size_t trig_line;
  const char *n3; /* the first Notation3-only construct, or NULL */
  size_t n3_line;
  bool n3_strong;   /* a construct only N3 has (not a variable) */
  bool after_block; /* a '}' closed the outermost graph block or formula */
  bool directive;   /* @prefix, @base, PREFIX or BASE seen before any junk */
  const char *junk; /* the first thing no format allows, or NULL */
  size_t junk_line;
  size_t junk_before; /* statements seen before the junk */
  size_t junk_lines;  /* lines skipped because of junk */
  bool bad;           /* the current token is junk */
  /* the statement being read */
  size_t terms;         /* terms at depth 0 */
  size_t all_terms;     /* terms at any depth */
  int in_directive;     /* 0, '@' (ends with '.') or 'P' (ends after the IRI) */
  bool plain;           /* only N-Triples terms so far */
  size_t first_line;    /* line of its first token */
  size_t last_end_line; /* line where the last statement ended */
  int depth;            /* '[' and '(' nesting */
  int graphs;           /* '{' nesting */
} Tok;

static void turtle_feature(Tok *t, const char *what, bool strong)
{
  t->plain = false;
  if (!t->turtle || (strong && !t->turtle_strong)) {
    t->turtle = what;
    t->turtle_line = t->line;
    t->turtle_strong = strong;
  }
}

static void trig_feature(Tok *t, const char *what)
{
  t->plain = false;
  if (!t->trig) {
    t->trig = what;
    t->trig_line = t->line;
  }
}

/* A construct only Notation3 has: formulae, rules, quantifiers. */
static void n3_feature(Tok *t, const char *what)
{
  if (!t->n3_strong) {
    t->n3 = what;
    t->n3_line = t->line;
    t->n3_strong = true;
  }
}

static void junk(Tok *t, const char *what)
{
  t->bad = true;
  if (!t->junk) {
    t->junk = what;
    t->junk_line = t->line;
    t->junk_before = t->statements;
  }
}

static int peekc(const Tok *t, size_t ahead)
{
  return t->pos + ahead < t->len ? (unsigned char)t->s[t->pos + ahead] : -1;
}

/* A term at depth 0 starts: note the line, count it. */
static void term(Tok *t, bool plain)
{
  if (t->in_directive) {
    return;
  }
  ++t->all_terms;
  if (t->terms == 0 && t->depth == 0) {
    t->first_line = t->line;
    if (t->statements > 0 && t->last_end_line == t->line && t->graphs == 0) {
      turtle_feature(t, "several statements on one line", true);
    }
  }
  if (t->depth == 0) {
    ++t->terms;
  }
  if (!plain) {
    t->plain = false;
  }
  if (t->line != t->first_line && t->depth == 0) {
    turtle_feature(t, "a statement over several lines", true);
  }
}

static void end_statement(Tok *t)
{
  if (t->in_directive) {
    t->in_directive = 0;
    t->last_end_line = t->line;
    return;
  }
  if (t->all_terms == 0) {
    return;
  }
  if (t->all_terms < 3) {
    junk(t, "an incomplete statement");
    t->terms = t->all_terms = 0;
    return;
  }
  ++t->statements;
  if (t->plain && t->first_line == t->line) {
    if (t->terms == 3) {
      ++t->nt_triples;
    } else if (t->terms == 4) {
      ++t->nt_quads;
    }
  }
  t->terms = t->all_terms = 0;
  t->plain = true;
  t->last_end_line = t->line;
}

/* '<' ... '>'; sets *absolute when the IRI has a scheme. */
static bool read_iri(Tok *t, bool *absolute)
{
  size_t i = t->pos + 1;
  bool scheme = true, has_scheme = false;
  for (; i < t->len; ++i) {
    unsigned char c = (unsigned char)t->s[i];
    if (c == '>') {
      t->pos = i + 1;
      *absolute = has_scheme;
      return true;
    }
    if (c <= 0x20 || c == '<' || c == '"' || c == '{' || c == '}' || c == '|' || c == '^' ||
        c == '`') {
      junk(t, "a character not allowed in an IRI");
      t->pos = i;
      return false;
    }
    if (scheme) {
      if (c == ':' && i > t->pos + 1) {
        has_scheme = true;
        scheme = false;
      } else if (!(is_alpha(c) ||
                   (i > t->pos + 1 && (is_digit(c) || c == '+' || c == '-' || c == '.')))) {
        scheme = false;
      }
    }
  }
  t->cut = true;
  t->pos = t->len;
  return false;
}

/* A string literal with its quotes; long strings and single quotes are
 * Turtle only. */
static bool read_string(Tok *t)
{
  char q = t->s[t->pos];
  bool is_long = peekc(t, 1) == q && peekc(t, 2) == q;
  if (is_long) {
    turtle_feature(t, "a long string (triple quotes)", true);
  } else if (q == '\'') {
    turtle_feature(t, "a single-quoted string", true);
  }
  size_t i = t->pos + (is_long ? 3 : 1);
  for (; i < t->len; ++i) {
    char c = t->s[i];
    if (c == '\\') {
      ++i;
      continue;
    }
    if (c == '\n') {
      if (!is_long) {
        junk(t, "a line break inside a string");
        t->pos = i;
        return false;
      }
      ++t->line;
    }
    if (c == q) {
      if (!is_long) {
        t->pos = i + 1;
        return true;
      }
      if (i + 2 < t->len && t->s[i + 1] == q && t->s[i + 2] == q) {
        /* A long string may end with up to two extra quotes. */
        while (i + 3 < t->len && t->s[i + 3] == q) {
          ++i;
        }
        t->pos = i + 3;
        return true;
      }
    }
  }
  t->cut = true;
  t->pos = t->len;
  return false;
}

static bool is_pn_char(int c)
{
  return is_alpha(c) || is_digit(c) || c == '_' || c == '-' || c == '.' || c == ':' ||
         c == '%' || c == '\\' || c >= 0x80;
}

/* A word: a prefixed name, 'a', true/false, or a keyword. */
static void read_word(Tok *t)
{
  size_t start = t->pos;
  size_t i = start;
  while (i < t->len && is_pn_char((unsigned char)t->s[i])) {
    if (t->s[i] == '\\' && i + 1 < t->len) {
      ++i; /* a reserved character escape: \. \~ ... */
    }
    ++i;
  }
  /* A trailing '.' ends the statement, it is not part of the name. */
  while (i > start + 1 && t->s[i - 1] == '.') {
    --i;
  }
  if (i == t->len) {
    t->cut = true;
  }
  const char *w = t->s + start;
  size_t n = i - start;
  t->pos = i;
  if (memchr(w, ':', n)) {
    term(t, false);
    turtle_feature(t, "prefixed names", true);
  } else if (n == 1 && w[0] == 'a') {
    term(t, false);
    turtle_feature(t, "the 'a' keyword", true);
  } else if ((n == 4 && !memcmp(w, "true", 4)) || (n == 5 && !memcmp(w, "false", 5))) {
    term(t, false);
    turtle_feature(t, "a bare boolean", true);
  } else if ((n == 6 && !strncasecmp(w, "PREFIX", 6)) ||
             (n == 4 && !strncasecmp(w, "BASE", 4))) {
    turtle_feature(t, "a SPARQL-style PREFIX/BASE directive", true);
    t->directive = t->directive || !t->junk;
    t->in_directive = 'P';
  } else if (n == 5 && !strncasecmp(w, "GRAPH", 5)) {
    trig_feature(t, "the GRAPH keyword");
  } else if (!t->cut) {
    junk(t, "a bare word");
  }
}

static void read_number(Tok *t)
{
  size_t i = t->pos;
  if (t->s[i] == '+' || t->s[i] == '-') {
    ++i;
  }
  while (i < t->len && (is_digit((unsigned char)t->s[i]) || t->s[i] == '.' ||
                        t->s[i] == 'e' || t->s[i] == 'E' ||
                        ((t->s[i] == '+' || t->s[i] == '-') &&
                         (t->s[i - 1] == 'e' || t->s[i - 1] == 'E')))) {
    ++i;
  }
  while (i > t->pos + 1 && t->s[i - 1] == '.') {
    --i;
  }
  if (i == t->len) {
    t->cut = true;
  }
  t->pos = i;
  term(t, false);
  turtle_feature(t, "a bare number", true);
}

/* After a literal: @lang or ^^datatype. */
static void read_literal_suffix(Tok *t)
{
  if (peekc(t, 0) == '@') {
    size_t i = t->pos + 1;
    while (i < t->len && (is_alpha((unsigned char)t->s[i]) ||
                          is_digit((unsigned char)t->s[i]) || t->s[i] == '-')) {
      ++i;
    }
    if (i == t->len) {
      t->cut = true;
    }
    t->pos = i;
  } else if (peekc(t, 0) == '^' && peekc(t, 1) == '^') {
    t->pos += 2;
    if (peekc(t, 0) == '<') {
      bool absolute;
      read_iri(t, &absolute);
    } else {
      turtle_feature(t, "a prefixed datatype", true);
      size_t i = t->pos;
      while (i < t->len && is_pn_char((unsigned char)t->s[i])) {
        ++i;
      }
      while (i > t->pos && t->s[i - 1] == '.') {
        --i;
      }
      t->pos = i;
    }
  }
}

/* One token; false at the end of the head or on the first junk. */
static bool next_token(Tok *t)
{
  for (;;) {
    int c = peekc(t, 0);
    if (c < 0) {
      return false;
    }
    if (c == '\n') {
      ++t->line;
      ++t->pos;
    } else if (is_space(c) || c == '\f') {
      ++t->pos;
    } else if (c == '#') {
      const char *nl = memchr(t->s + t->pos, '\n', t->len - t->pos);
      t->pos = nl ? (size_t)(nl - t->s) : t->len;
    } else {
      break;
    }
  }
  ++t->tokens;
  t->bad = false;
  int c = peekc(t, 0);
  bool absolute;
  switch (c) {
  case '<':
    if (!read_iri(t, &absolute)) {
      return false;
    }
    if (t->in_directive == 'P') {
      t->in_directive = 0; /* PREFIX p: <iri> ends with the IRI */
      return true;
    }
    term(t, absolute);
    if (!absolute && !t->in_directive) {
      turtle_feature(t, "relative IRIs", false);
    }
    return true;
  case '"':
  case '\'':
    term(t, true);
    if (!read_string(t)) {
      return false;
    }
    read_literal_suffix(t);
    return true;
  case '_':
    if (peekc(t, 1) != ':') {
      junk(t, "'_' not starting a blank node");
      return false;
    }
    term(t, true);
    t->pos += 2;
    while (t->pos < t->len && is_pn_char(peekc(t, 0)) && peekc(t, 0) != ':') {
      ++t->pos;
    }
    while (t->s[t->pos - 1] == '.') {
      --t->pos;
    }
    return true;
  case '@':
    if (starts_with(t->s + t->pos, t->len - t->pos, "@forAll") ||
        starts_with(t->s + t->pos, t->len - t->pos, "@forSome")) {
      n3_feature(t, "an @forAll / @forSome quantifier");
      junk(t, t->n3);
      return false;
    }
    if (starts_with(t->s + t->pos, t->len - t->pos, "@prefix") ||
        starts_with(t->s + t->pos, t->len - t->pos, "@base")) {
      turtle_feature(t, "an @prefix/@base directive", true);
      t->directive = t->directive || !t->junk;
      t->in_directive = '@';
      t->pos += t->s[t->pos + 1] == 'p' ? 7 : 5;
      return true;
    }
    junk(t, "a stray '@'");
    return false;
  case '[':
  case '(':
    term(t, false);
    turtle_feature(t, c == '[' ? "a blank node property list" : "a collection", true);
    ++t->depth;
    ++t->pos;
    return true;
  case ']':
  case ')':
    if (--t->depth < 0) {
      junk(t, "an unbalanced bracket");
      return false;
    }
    ++t->pos;
    return true;
  case '{':
    if (t->graphs > 0 || t->depth > 0 || t->terms >= 2) {
      n3_feature(t, t->terms >= 2 ? "a formula { ... } as an object"
                                  : "a formula { ... } inside a statement");
    }
    trig_feature(t, "a graph block");
    t->after_block = false;
    ++t->graphs;
    t->terms = t->all_terms = 0; /* the graph label is not part of a triple */
    t->plain = true;
    ++t->pos;
    return true;
  case '}':
    if (--t->graphs < 0) {
      junk(t, "an unbalanced '}'");
      return false;
    }
    end_statement(t);
    t->after_block = t->graphs == 0;
    ++t->pos;
    return true;
  case ';':
    turtle_feature(t, "';' predicate lists", true);
    ++t->pos;
    return true;
  case ',':
    turtle_feature(t, "',' object lists", true);
    ++t->pos;
    return true;
  case '.':
    if (is_digit(peekc(t, 1))) {
      read_number(t);
      return true;
    }
    if (t->depth == 0 && t->after_block && !t->in_directive &&
        (t->all_terms == 0 || t->all_terms == 2)) {
      n3_feature(t, t->all_terms ? "a formula { ... } as a subject"
                                 : "a formula { ... } as an object");
    }
    if (t->depth == 0) {
      t->after_block = false;
      end_statement(t);
    }
    ++t->pos;
    return true;
  case '+':
  case '-':
    if (!is_digit(peekc(t, 1)) && peekc(t, 1) != '.') {
      junk(t, "a stray sign");
      return false;
    }
    read_number(t);
    return true;
  case '^':
    junk(t, "a stray '^'");
    return false;
  case '=':
  case '?':
    /* Notation3 rules ('=>', '<=' is caught as an IRI) and variables
     * (which SPARQL has too: they need a formula to count). */
    if (c == '=' && peekc(t, 1) == '>') {
      n3_feature(t, "an N3 rule ('=>')");
    } else if (!t->n3) {
      t->n3 = c == '=' ? "an N3 equality ('=')" : "an N3/SPARQL variable";
      t->n3_line = t->line;
    }
    junk(t, t->n3);
    return false;
  default:
    if (is_digit(c)) {
      read_number(t);
      return true;
    }
    if (is_alpha(c) || c == ':' || c >= 0x80) {
      read_word(t);
      return !t->bad;
    }
    junk(t, "an unexpected character");
    return false;
  }
}

/* When the text is not RDF: CSV or TSV, or just text. Delimited values
 * have the same number of separators (outside double quotes) on their
 * first lines. */
static void describe_text(const char *s, size_t len, size_t start, const Tok *t,
                          LwGuessInfo *info)
{
  static const char seps[] = ",\t;|";
  for (const char *sep = seps; *sep; ++sep) {
    enum { LINES = 5 };
    size_t counts[LINES] = {0};
    size_t line = 0;
    bool quoted = false;
    for (size_t i = start; i < len && line < LINES; ++i) {
      if (s[i] == '"') {
        quoted = !quoted;
      } else if (s[i] == '\n' && !quoted) {
        ++line;
      } else if (s[i] == *sep && !quoted) {
        ++counts[line];
      }
    }
    size_t same = 0;
    for (size_t l = 1; l < line && l < LINES; ++l) {
      same += counts[l] == counts[0];
    }
    if (counts[0] > 0 && same >= 1 && same + 1 >= line) {
      set_reason(info, "looks like %s",
                 *sep == '\t' ? "tab-separated values (TSV)"
                              : "CSV (delimiter-separated values)");
      return;
    }
  }
  set_reason(info, "text that is not RDF (%s at line %zu)", t->junk, t->junk_line);
}

static LwFormat decide_turtle_family(Tok *t, Hints h, LwGuessInfo *info)
{
  size_t ended = t->statements;
  bool unfinished = t->terms > 0;
  if (t->n3 && (t->trig || t->n3_strong)) {
    set_reason(info, "N3 formulae are not RDF: %s (line %zu)", t->n3, t->n3_line);
    return LW_FORMAT_UNKNOWN;
  }
  if (t->trig) {
    set_reason(info, "TriG: %s (line %zu)", t->trig, t->trig_line);
    return LW_FORMAT_TRIG;
  }
  if (t->nt_quads > 0 && (!t->turtle_strong || t->nt_quads * 2 > ended)) {
    if (t->turtle_strong) {
      set_reason(info,
                 "N-Quads: %zu statements with a graph term, though also %s (line %zu)",
                 t->nt_quads, t->turtle, t->turtle_line);
    } else {
      set_reason(info, "N-Quads: a fourth term (graph) before '.'");
    }
    return LW_FORMAT_NQUADS;
  }
  if (t->turtle) {
    if (pick(h, FMT_BIT(LW_FORMAT_TRIG))) {
      info->hint_used = true;
      set_reason(info, "Turtle content (%s, line %zu), TriG by hint", t->turtle,
                 t->turtle_line);
      return LW_FORMAT_TRIG;
    }
    set_reason(info, "Turtle: %s (line %zu)", t->turtle, t->turtle_line);
    return LW_FORMAT_TURTLE;
  }
  if (ended == 0 && !unfinished) {
    LwFormat hint = pick(h, TURTLE_FAMILY);
    if (hint) {
      info->hint_used = true;
      set_reason(info, "no statements (only whitespace and comments); format by hint");
      return hint;
    }
    if (t->tokens > 0) {
      info->partial = true;
      set_reason(info, "no complete statement in the head");
    } else {
      set_reason(info, "no statements (only whitespace and comments)");
    }
    return LW_FORMAT_UNKNOWN;
  }
  /* Only plain three-term statements so far: N-Triples, which Turtle,
   * TriG and N-Quads all include; a hint naming one of those wins. */
  if (ended == 0 || t->cut || t->len >= LW_GUESS_HEAD_SIZE) {
    info->partial = true;
  }
  LwFormat hint = pick(h, TURTLE_FAMILY);
  if (hint && hint != LW_FORMAT_NTRIPLES) {
    info->hint_used = true;
    set_reason(info, "N-Triples content (%zu statement%s), %s by hint", ended,
               ended == 1 ? "" : "s", lw_format_name(hint));
    return hint;
  }
  set_reason(info, "N-Triples: %zu statement%s of three terms, one per line", ended,
             ended == 1 ? "" : "s");
  return LW_FORMAT_NTRIPLES;
}

static LwFormat guess_turtle_family(const char *s, size_t len, size_t start, Hints h,
                                    LwGuessInfo *info, bool *clean, size_t *statements)
{
  Tok t;
  memset(&t, 0, sizeof(t));
  t.s = s;
  t.len = len;
  t.pos = start;
  t.line = 1;
  t.plain = true;
  /* On junk, skip to the next line and go on: a dirty file with a bad
   * first line is still RDF when good statements follow. */
  for (;;) {
    if (next_token(&t)) {
      continue;
    }
    if (t.pos >= t.len || t.cut || !t.bad) {
      break;
    }
    ++t.junk_lines;
    const char *nl = memchr(t.s + t.pos, '\n', t.len - t.pos);
    if (!nl) {
      break;
    }
    t.pos = (size_t)(nl - t.s);
    t.terms = t.all_terms = 0;
    t.depth = 0;
    t.in_directive = 0;
    t.plain = true;
  }
  *clean = !t.junk;
  if (statements) {
    *statements = t.statements;
  }
  if (t.junk && t.junk_before == 0 && !t.directive && t.statements <= t.junk_lines) {
    describe_text(s, len, start, &t, info);
    return LW_FORMAT_UNKNOWN;
  }
  LwFormat f = decide_turtle_family(&t, h, info);
  if (t.junk && f != LW_FORMAT_UNKNOWN) {
    size_t used = strlen(info->reason);
    snprintf(info->reason + used, sizeof(info->reason) - used,
             "; syntax error near line %zu", t.junk_line);
  }
  return f;
}

/* ---- the entry point ------------------------------------------------ */

/* Skips whitespace (and nothing else) from i. */
static size_t skip_space(const char *s, size_t len, size_t i)
{
  while (i < len && (is_space((unsigned char)s[i]) || s[i] == '\f')) {
    ++i;
  }
  return i;
}

/* Skips whitespace and '#' comment lines; for the reported start offset. */
static size_t skip_space_and_comments(const char *s, size_t len, size_t i)
{
  for (;;) {
    i = skip_space(s, len, i);
    if (i < len && s[i] == '#') {
      const char *nl = memchr(s + i, '\n', len - i);
      i = nl ? (size_t)(nl - s) : len;
    } else if (starts_with(s + i, len - i, "<!--")) {
      i = skip_past(s, len, i + 4, "-->");
    } else {
      return i;
    }
  }
}

/* True when s ('<' first) starts with an HTML tag's name, "<html>". */
static bool starts_html_tag(const char *s, size_t len)
{
  size_t n = 1;
  while (n < len && is_name_char((unsigned char)s[n])) {
    ++n;
  }
  return is_html_tag(s + 1, n - 1);
}

/* Steps 2 and 3: the first significant character picks the family.
 * *clean is set when the Turtle-family scanner found nothing wrong. */
static LwFormat guess_content(const char *s, size_t len, size_t first, bool cut, Hints h,
                              LwGuessInfo *info, bool *clean)
{
  char c = s[first];
  bool maybe;
  if (c == '#' && info->start < len && s[info->start] == '<' &&
      certainly_markup(s + info->start, len - info->start, &maybe)) {
    /* '#' lines before markup: not Turtle, whatever they are. */
    return guess_markup(s, len, info->start, h, info, cut);
  }
  if (c == '<') {
    if (certainly_markup(s + first, len - first, &maybe)) {
      return guess_markup(s, len, first, h, info, cut);
    }
    if (maybe) {
      /* '<name>': an IRI if a statement follows, else a tag. */
      LwGuessInfo trial = *info;
      size_t statements = 0;
      LwFormat f = guess_turtle_family(s, len, first, h, &trial, clean, &statements);
      /* "<html><head></head></html>" reads as four relative IRIs */
      if (f != LW_FORMAT_UNKNOWN &&
          (statements > 0 || !starts_html_tag(s + first, len - first))) {
        *info = trial;
        return f;
      }
      *clean = false;
      return guess_markup(s, len, first, h, info, cut);
    }
  } else if ((c == '{' || c == '[') && looks_like_json(s, len, first)) {
    return guess_json(s, len, first, h, info);
  } else if (c == '{' && first + 1 == len) {
    info->partial = true;
    set_reason(info, "a lone '{' (JSON or TriG)");
    return pick(h, FMT_BIT(LW_FORMAT_TRIG)) ? LW_FORMAT_TRIG : LW_FORMAT_JSONLD;
  }
  return guess_turtle_family(s, len, first, h, info, clean, NULL);
}

LwFormat lw_guess_format(const char *head, size_t len, const char *media_type,
                         const char *filename, LwGuessInfo *info)
{
  LwGuessInfo local;
  if (!info) {
    info = &local;
  }
  memset(info, 0, sizeof(*info));
  Hints h = {lw_guess_from_media_type(media_type), lw_guess_from_filename(filename)};
  info->hint = h.media != LW_FORMAT_UNKNOWN ? h.media : h.ext;
  if (!head) {
    len = 0;
  }
  if (len > LW_GUESS_HEAD_MAX) {
    len = LW_GUESS_HEAD_MAX;
  }
  /* A head as long as we ask for probably holds only part of the file. */
  bool cut = len >= LW_GUESS_HEAD_SIZE;
  const char *s = head;
  size_t i = 0;
  if (len >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) {
    info->bom = true;
    i = 3;
  }
  if (len == i) {
    set_reason(info, "empty content");
    return LW_FORMAT_UNKNOWN;
  }
  const char *why = magic((const unsigned char *)s + i, len - i);
  if (why) {
    set_reason(info, "%s", why);
    return LW_FORMAT_UNKNOWN;
  }
  size_t first = skip_space(s, len, i);
  info->start = skip_space_and_comments(s, len, i);
  if (first == len) {
    set_reason(info, "empty content (only whitespace)");
    return LW_FORMAT_UNKNOWN;
  }
  bool clean = false;
  LwFormat f = guess_content(s, len, first, cut, h, info, &clean);
  /* Control characters and broken UTF-8 make it binary, unless the Turtle
   * family scanner read it without a hitch (literals may hold them). */
  why = binary((const unsigned char *)s + i, len - i);
  if (why && !(clean && f != LW_FORMAT_UNKNOWN)) {
    set_reason(info, "%s", why);
    info->hint_used = false;
    return LW_FORMAT_UNKNOWN;
  }
  return f;
}
