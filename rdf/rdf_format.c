#include "rdf/rdf.h"

#include <stddef.h>
#include <strings.h>

static const struct {
  LwFormat format;
  const char *name;
  const char *aliases[3];
} formats[] = {
  {LW_FORMAT_JSONLD, "JSON-LD", {"jsonld", "json", NULL}},
  {LW_FORMAT_NQUADS, "N-Quads", {"nquads", "nq", NULL}},
  {LW_FORMAT_NTRIPLES, "N-Triples", {"ntriples", "nt", NULL}},
  {LW_FORMAT_RDFXML, "RDF/XML", {"rdfxml", "xml", "rdf"}},
  {LW_FORMAT_RDFA, "RDFa", {"rdfa", "html", NULL}},
  {LW_FORMAT_TRIG, "TriG", {"trig", NULL, NULL}},
  {LW_FORMAT_TURTLE, "Turtle", {"turtle", "ttl", NULL}},
  {LW_FORMAT_JSONLD_HTML, "JSON-LD/HTML", {"jsonld-html", "html-jsonld", NULL}},
  {LW_FORMAT_RDFJSON, "RDF/JSON", {"rdfjson", "rj", "rdf-json"}},
};

const char *lw_format_name(LwFormat format)
{
  for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); ++i) {
    if (formats[i].format == format) {
      return formats[i].name;
    }
  }
  return "unknown";
}

LwFormat lw_format_parse(const char *name)
{
  for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); ++i) {
    if (!strcasecmp(name, formats[i].name)) {
      return formats[i].format;
    }
    for (size_t a = 0; a < 3 && formats[i].aliases[a]; ++a) {
      if (!strcasecmp(name, formats[i].aliases[a])) {
        return formats[i].format;
      }
    }
  }
  return LW_FORMAT_UNKNOWN;
}
