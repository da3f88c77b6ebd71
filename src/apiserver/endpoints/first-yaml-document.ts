/**
 * Upstream reads a YAML request body with one Unmarshal of Go's YAML decoder,
 * which decodes the first document of the stream and never looks at the rest:
 * a body of several `---` documents creates the first object, not a 400. The
 * `yaml` package's parseDocument refuses such a stream, so this takes the
 * first of parseAllDocuments instead (the errors of later documents are theirs).
 */
import { parseAllDocuments, parseDocument, type Document, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';

type YamlOptions = ParseOptions & DocumentOptions & SchemaOptions;

export function firstYamlDocument(text: string, options: YamlOptions): Document.Parsed {
  const documents = parseAllDocuments(text, options);
  // An empty stream has no document: parseDocument gives the empty one, as for a single empty document.
  return documents[0] ?? parseDocument(text, options);
}
