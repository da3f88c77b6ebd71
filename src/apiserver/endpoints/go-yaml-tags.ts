import type { Tags } from 'yaml';

/**
 * The YAML 1.1 scalar tags, made to resolve plain scalars as Go's yaml.v2 does
 * (sigs.k8s.io/yaml): a float needs a digit (`e5`, `.` and `-.` stay strings,
 * where the yaml package reads them as NaN), and there are no base-60 numbers
 * (`1:20` stays a string, not 80).
 */
const GO_FLOAT_EXP = /^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]*[0-9][0-9_]*)[eE][-+]?[0-9]+$/;
const GO_FLOAT = /^[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9_]*[0-9][0-9_]*)$/;

export function asGoYamlTags(tags: Tags): Tags {
  const out: Tags = [];
  for (const tag of tags) {
    if (typeof tag !== 'object' || !('test' in tag) || tag.test === undefined) {
      out.push(tag);
      continue;
    }
    if (tag.format === 'TIME') continue;
    if (tag.tag === 'tag:yaml.org,2002:float' && tag.format === 'EXP') out.push({ ...tag, test: GO_FLOAT_EXP });
    else if (tag.tag === 'tag:yaml.org,2002:float' && tag.format === undefined && tag.test.test('.')) out.push({ ...tag, test: GO_FLOAT });
    else out.push(tag);
  }
  return out;
}
