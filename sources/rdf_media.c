/*
 * What a declared format means for the harvest: RDF (fetched), HTML (a page
 * that may hold RDFa or JSON-LD: fetched and guessed), not RDF (skipped,
 * never fetched) or unknown (fetched and guessed). Publishers write formats
 * as media types, as IRIs (IANA's, the EU file-type authority's) or as
 * CKAN labels, in any case.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sources/sources.h"

typedef struct {
  const char *name; /* lower case */
  LwMediaClass cls;
} Known;

/* Media types (the part before ';'), EU file-type codes and CKAN labels,
 * all compared lower-cased. Archives count as RDF only where the publisher
 * says the content is (packageFormat / compressFormat with an RDF
 * mediaType): alone they are guessed. */
static const Known known[] = {
  /* RDF */
  {"text/turtle", LW_MEDIA_RDF},
  {"application/x-turtle", LW_MEDIA_RDF},
  {"application/turtle", LW_MEDIA_RDF},
  {"application/rdf+xml", LW_MEDIA_RDF},
  {"application/n-triples", LW_MEDIA_RDF},
  {"application/n-quads", LW_MEDIA_RDF},
  {"text/x-nquads", LW_MEDIA_RDF},
  {"application/ld+json", LW_MEDIA_RDF},
  {"application/trig", LW_MEDIA_RDF},
  {"application/x-trig", LW_MEDIA_RDF},
  {"text/n3", LW_MEDIA_RDF},
  {"text/rdf+n3", LW_MEDIA_RDF},
  {"application/n3", LW_MEDIA_RDF},
  {"rdf_turtle", LW_MEDIA_RDF},
  {"rdf_xml", LW_MEDIA_RDF},
  {"rdf_n_triples", LW_MEDIA_RDF},
  {"rdf_n_quads", LW_MEDIA_RDF},
  {"rdf_trig", LW_MEDIA_RDF},
  {"rdf_n3", LW_MEDIA_RDF},
  {"jsonld", LW_MEDIA_RDF},
  {"json_ld", LW_MEDIA_RDF},
  {"json-ld", LW_MEDIA_RDF},
  {"rdf", LW_MEDIA_RDF},
  {"rdf/xml", LW_MEDIA_RDF},
  {"rdf+xml", LW_MEDIA_RDF},
  {"rdf-xml", LW_MEDIA_RDF},
  {"owl", LW_MEDIA_RDF},
  {"turtle", LW_MEDIA_RDF},
  {"ttl", LW_MEDIA_RDF},
  {"rdf/turtle", LW_MEDIA_RDF},
  {"n-triples", LW_MEDIA_RDF},
  {"ntriples", LW_MEDIA_RDF},
  {"nt", LW_MEDIA_RDF},
  {"rdf/n-triples", LW_MEDIA_RDF},
  {"n-quads", LW_MEDIA_RDF},
  {"nquads", LW_MEDIA_RDF},
  {"nq", LW_MEDIA_RDF},
  {"trig", LW_MEDIA_RDF},
  {"n3", LW_MEDIA_RDF},
  {"rdfa", LW_MEDIA_HTML},
  /* pages */
  {"text/html", LW_MEDIA_HTML},
  {"application/xhtml+xml", LW_MEDIA_HTML},
  {"html", LW_MEDIA_HTML},
  {"xhtml", LW_MEDIA_HTML},
  /* archives and plain JSON / XML: the content decides */
  {"application/zip", LW_MEDIA_UNKNOWN},
  {"application/gzip", LW_MEDIA_UNKNOWN},
  {"application/x-gzip", LW_MEDIA_UNKNOWN},
  {"application/x-bzip2", LW_MEDIA_UNKNOWN},
  {"application/x-tar", LW_MEDIA_UNKNOWN},
  {"application/octet-stream", LW_MEDIA_UNKNOWN},
  {"application/json", LW_MEDIA_UNKNOWN},
  {"application/xml", LW_MEDIA_UNKNOWN},
  {"text/xml", LW_MEDIA_UNKNOWN},
  {"text/plain", LW_MEDIA_UNKNOWN},
  {"zip", LW_MEDIA_UNKNOWN},
  {"gzip", LW_MEDIA_UNKNOWN},
  {"gz", LW_MEDIA_UNKNOWN},
  {"tar", LW_MEDIA_UNKNOWN},
  {"json", LW_MEDIA_UNKNOWN},
  {"xml", LW_MEDIA_UNKNOWN},
  {"txt", LW_MEDIA_UNKNOWN},
  {"bin", LW_MEDIA_UNKNOWN},
  {"octet", LW_MEDIA_UNKNOWN},
};

/* Formats that are certainly not RDF: the start of the name is enough
 * ("text/csv", "csv", "shp", "wms_srvc", "application/vnd.ms-excel"). */
static const char *const not_rdf[] = {
  "text/csv",
  "csv",
  "tsv",
  "text/tab-separated-values",
  "application/vnd",
  "application/pdf",
  "pdf",
  "application/msword",
  "doc",
  "docx",
  "xls",
  "xlsx",
  "ods",
  "odt",
  "shp",
  "application/x-shapefile",
  "geojson",
  "application/geo+json",
  "kml",
  "kmz",
  "application/vnd.google-earth",
  "gml",
  "application/gml",
  "wms",
  "wfs",
  "wcs",
  "wmts",
  "ogc",
  "image/",
  "video/",
  "audio/",
  "png",
  "jpeg",
  "jpg",
  "gif",
  "tiff",
  "tif",
  "svg",
  "mp3",
  "mp4",
  "text/calendar",
  "ics",
  "api",
  "esri",
  "arcgis",
  "rest",
  "soap",
  "sparql", /* an endpoint, not a file */
  "dbf",
  "mdb",
  "gpkg",
  "netcdf",
  "nc",
  "hdf",
  "parquet",
  "sql",
  "text/x-sql",
  "xsd",
  "dtd",
  "rss",
  "atom",
  "application/atom",
  "application/rss",
  "ppt",
  "pptx",
  "rtf",
  "epub",
  "text/markdown",
  "md",
  "yaml",
  "application/x-yaml",
  "grib",
  "dwg",
  "dxf",
  "ecw",
  "jp2",
  "las",
  "laz",
  "xyz",
  "asc",
  "mapinfo",
  "tab",
  "gtfs",
  "siard",
};

/* The last segment of an IRI (after '/' or '#'), the subtype-bearing tail
 * of an IANA media-type IRI ("text/turtle"), or name itself. */
static const char *last_part(const char *format, char *buf, size_t size)
{
  static const char iana[] = "iana.org/assignments/media-types/";
  const char *m = strstr(format, iana);
  if (m) {
    snprintf(buf, size, "%s", m + sizeof(iana) - 1);
    return buf;
  }
  if (!strncasecmp(format, "http://", 7) || !strncasecmp(format, "https://", 8)) {
    const char *slash = strrchr(format, '/'), *hash = strrchr(format, '#');
    const char *tail = hash && hash > slash ? hash : slash;
    snprintf(buf, size, "%s", tail + 1);
    return buf;
  }
  snprintf(buf, size, "%s", format);
  return buf;
}

/* buf lower-cased, trimmed, parameters (";...") cut off. */
static void normalise(char *buf)
{
  char *semi = strchr(buf, ';');
  if (semi) {
    *semi = '\0';
  }
  char *p = buf;
  while (isspace((unsigned char)*p) || *p == '.') {
    ++p; /* ".ttl" as a CKAN format */
  }
  memmove(buf, p, strlen(p) + 1);
  for (p = buf; *p; ++p) {
    *p = (char)tolower((unsigned char)*p);
  }
  while (p > buf && isspace((unsigned char)p[-1])) {
    *--p = '\0';
  }
}

LwMediaClass lw_media_class(const char *format)
{
  if (!format || !*format) {
    return LW_MEDIA_UNKNOWN;
  }
  char buf[256];
  last_part(format, buf, sizeof(buf));
  normalise(buf);
  for (size_t i = 0; i < sizeof(known) / sizeof(*known); ++i) {
    if (!strcmp(buf, known[i].name)) {
      return known[i].cls;
    }
  }
  for (size_t i = 0; i < sizeof(not_rdf) / sizeof(*not_rdf); ++i) {
    size_t n = strlen(not_rdf[i]);
    /* a whole label ("nc"), or a media type's start ("image/png") */
    if (!strncmp(buf, not_rdf[i], n) &&
        (buf[n] == '\0' || not_rdf[i][n - 1] == '/' || buf[n] == '/' || buf[n] == '.' ||
         buf[n] == '_' || buf[n] == '-' || buf[n] == '+')) {
      return LW_MEDIA_NOT_RDF;
    }
  }
  /* "+xml"/"+json" types we do not know, and anything else: guess */
  return LW_MEDIA_UNKNOWN;
}
