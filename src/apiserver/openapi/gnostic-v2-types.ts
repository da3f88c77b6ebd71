/**
 * The protobuf messages of gnostic's `openapi.v2` package (the Swagger 2.0
 * document model that kubectl decodes /openapi/v2 into), written as our own
 * protobufjs descriptor: only the messages and fields a Kubernetes document
 * uses. Field numbers are facts of google/gnostic-models openapiv2; field
 * names here are ours (only numbers and wire types reach the wire). A
 * message-valued `Any` carries its value as YAML text (field 2); the
 * google.protobuf.Any form (field 1) is never written.
 */
import protobuf from 'protobufjs';

/** A field: name, number, type, and whether it repeats. */
type FieldSpec = readonly [name: string, id: number, type: string, repeated?: 'repeated'];

const R = 'repeated' as const;

/**
 * The type and validation fields that non-body parameters and PrimitivesItems
 * share, in gnostic's order, numbered consecutively from `first`.
 */
function primitiveFields(first: number): FieldSpec[] {
  const names: [string, string, ('repeated' | undefined)?][] = [
    ['type', 'string'],
    ['format', 'string'],
    ['items', 'PrimitivesItems'],
    ['collectionFormat', 'string'],
    ['default', 'Any'],
    ['maximum', 'double'],
    ['exclusiveMaximum', 'bool'],
    ['minimum', 'double'],
    ['exclusiveMinimum', 'bool'],
    ['maxLength', 'int64'],
    ['minLength', 'int64'],
    ['pattern', 'string'],
    ['maxItems', 'int64'],
    ['minItems', 'int64'],
    ['uniqueItems', 'bool'],
    ['enum', 'Any', R],
    ['multipleOf', 'double'],
  ];
  return names.map(([name, type, rule], i) => (rule ? [name, first + i, type, rule] : [name, first + i, type]));
}

const MESSAGES: Record<string, { fields: FieldSpec[]; oneof?: readonly string[] }> = {
  Any: { fields: [['yaml', 2, 'string']] },
  NamedAny: { fields: [['name', 1, 'string'], ['value', 2, 'Any']] },
  Document: {
    fields: [
      ['swagger', 1, 'string'],
      ['info', 2, 'Info'],
      ['host', 3, 'string'],
      ['basePath', 4, 'string'],
      ['schemes', 5, 'string', R],
      ['consumes', 6, 'string', R],
      ['produces', 7, 'string', R],
      ['paths', 8, 'Paths'],
      ['definitions', 9, 'Definitions'],
      ['parameters', 10, 'ParameterDefinitions'],
      ['security', 12, 'SecurityRequirement', R],
      ['securityDefinitions', 13, 'SecurityDefinitions'],
      ['vendorExtension', 16, 'NamedAny', R],
    ],
  },
  Info: {
    fields: [
      ['title', 1, 'string'],
      ['version', 2, 'string'],
      ['description', 3, 'string'],
      ['vendorExtension', 7, 'NamedAny', R],
    ],
  },
  Paths: { fields: [['vendorExtension', 1, 'NamedAny', R], ['path', 2, 'NamedPathItem', R]] },
  NamedPathItem: { fields: [['name', 1, 'string'], ['value', 2, 'PathItem']] },
  PathItem: {
    fields: [
      ['xRef', 1, 'string'],
      ['get', 2, 'Operation'],
      ['put', 3, 'Operation'],
      ['post', 4, 'Operation'],
      ['delete', 5, 'Operation'],
      ['options', 6, 'Operation'],
      ['head', 7, 'Operation'],
      ['patch', 8, 'Operation'],
      ['parameters', 9, 'ParametersItem', R],
      ['vendorExtension', 10, 'NamedAny', R],
    ],
  },
  Operation: {
    fields: [
      ['tags', 1, 'string', R],
      ['summary', 2, 'string'],
      ['description', 3, 'string'],
      ['operationId', 5, 'string'],
      ['produces', 6, 'string', R],
      ['consumes', 7, 'string', R],
      ['parameters', 8, 'ParametersItem', R],
      ['responses', 9, 'Responses'],
      ['schemes', 10, 'string', R],
      ['deprecated', 11, 'bool'],
      ['vendorExtension', 13, 'NamedAny', R],
    ],
  },
  ParametersItem: { fields: [['parameter', 1, 'Parameter'], ['jsonReference', 2, 'JsonReference']], oneof: ['parameter', 'jsonReference'] },
  JsonReference: { fields: [['xRef', 1, 'string'], ['description', 2, 'string']] },
  Parameter: { fields: [['bodyParameter', 1, 'BodyParameter'], ['nonBodyParameter', 2, 'NonBodyParameter']], oneof: ['bodyParameter', 'nonBodyParameter'] },
  BodyParameter: {
    fields: [
      ['description', 1, 'string'],
      ['name', 2, 'string'],
      ['in', 3, 'string'],
      ['required', 4, 'bool'],
      ['schema', 5, 'Schema'],
      ['vendorExtension', 6, 'NamedAny', R],
    ],
  },
  NonBodyParameter: {
    fields: [
      ['headerParameterSubSchema', 1, 'HeaderParameterSubSchema'],
      ['queryParameterSubSchema', 3, 'QueryParameterSubSchema'],
      ['pathParameterSubSchema', 4, 'PathParameterSubSchema'],
    ],
    oneof: ['headerParameterSubSchema', 'queryParameterSubSchema', 'pathParameterSubSchema'],
  },
  // Header and path parameters have no allowEmptyValue, so their shared fields start one number earlier.
  HeaderParameterSubSchema: {
    fields: [['required', 1, 'bool'], ['in', 2, 'string'], ['description', 3, 'string'], ['name', 4, 'string'], ...primitiveFields(5), ['vendorExtension', 22, 'NamedAny', R]],
  },
  PathParameterSubSchema: {
    fields: [['required', 1, 'bool'], ['in', 2, 'string'], ['description', 3, 'string'], ['name', 4, 'string'], ...primitiveFields(5), ['vendorExtension', 22, 'NamedAny', R]],
  },
  QueryParameterSubSchema: {
    fields: [
      ['required', 1, 'bool'],
      ['in', 2, 'string'],
      ['description', 3, 'string'],
      ['name', 4, 'string'],
      ['allowEmptyValue', 5, 'bool'],
      ...primitiveFields(6),
      ['vendorExtension', 23, 'NamedAny', R],
    ],
  },
  PrimitivesItems: { fields: [...primitiveFields(1), ['vendorExtension', 18, 'NamedAny', R]] },
  Responses: { fields: [['responseCode', 1, 'NamedResponseValue', R], ['vendorExtension', 2, 'NamedAny', R]] },
  NamedResponseValue: { fields: [['name', 1, 'string'], ['value', 2, 'ResponseValue']] },
  ResponseValue: { fields: [['response', 1, 'Response'], ['jsonReference', 2, 'JsonReference']], oneof: ['response', 'jsonReference'] },
  Response: { fields: [['description', 1, 'string'], ['schema', 2, 'SchemaItem'], ['vendorExtension', 5, 'NamedAny', R]] },
  SchemaItem: { fields: [['schema', 1, 'Schema']], oneof: ['schema'] },
  Schema: {
    fields: [
      ['xRef', 1, 'string'],
      ['format', 2, 'string'],
      ['title', 3, 'string'],
      ['description', 4, 'string'],
      ['default', 5, 'Any'],
      ['multipleOf', 6, 'double'],
      ['maximum', 7, 'double'],
      ['exclusiveMaximum', 8, 'bool'],
      ['minimum', 9, 'double'],
      ['exclusiveMinimum', 10, 'bool'],
      ['maxLength', 11, 'int64'],
      ['minLength', 12, 'int64'],
      ['pattern', 13, 'string'],
      ['maxItems', 14, 'int64'],
      ['minItems', 15, 'int64'],
      ['uniqueItems', 16, 'bool'],
      ['maxProperties', 17, 'int64'],
      ['minProperties', 18, 'int64'],
      ['required', 19, 'string', R],
      ['enum', 20, 'Any', R],
      ['additionalProperties', 21, 'AdditionalPropertiesItem'],
      ['type', 22, 'TypeItem'],
      ['items', 23, 'ItemsItem'],
      ['allOf', 24, 'Schema', R],
      ['properties', 25, 'Properties'],
      ['discriminator', 26, 'string'],
      ['readOnly', 27, 'bool'],
      ['example', 30, 'Any'],
      ['vendorExtension', 31, 'NamedAny', R],
    ],
  },
  AdditionalPropertiesItem: { fields: [['schema', 1, 'Schema'], ['boolean', 2, 'bool']], oneof: ['schema', 'boolean'] },
  TypeItem: { fields: [['value', 1, 'string', R]] },
  ItemsItem: { fields: [['schema', 1, 'Schema', R]] },
  Properties: { fields: [['additionalProperties', 1, 'NamedSchema', R]] },
  NamedSchema: { fields: [['name', 1, 'string'], ['value', 2, 'Schema']] },
  Definitions: { fields: [['additionalProperties', 1, 'NamedSchema', R]] },
  ParameterDefinitions: { fields: [['additionalProperties', 1, 'NamedParameter', R]] },
  NamedParameter: { fields: [['name', 1, 'string'], ['value', 2, 'Parameter']] },
  SecurityRequirement: { fields: [['additionalProperties', 1, 'NamedStringArray', R]] },
  NamedStringArray: { fields: [['name', 1, 'string'], ['value', 2, 'StringArray']] },
  StringArray: { fields: [['value', 1, 'string', R]] },
  SecurityDefinitions: { fields: [['additionalProperties', 1, 'NamedSecurityDefinitionsItem', R]] },
  NamedSecurityDefinitionsItem: { fields: [['name', 1, 'string'], ['value', 2, 'SecurityDefinitionsItem']] },
  SecurityDefinitionsItem: { fields: [['apiKeySecurity', 2, 'ApiKeySecurity']], oneof: ['apiKeySecurity'] },
  ApiKeySecurity: {
    fields: [
      ['type', 1, 'string'],
      ['name', 2, 'string'],
      ['in', 3, 'string'],
      ['description', 4, 'string'],
      ['vendorExtension', 5, 'NamedAny', R],
    ],
  },
};

function descriptor(): protobuf.INamespace {
  const nested: Record<string, protobuf.IType> = {};
  for (const [name, { fields, oneof }] of Object.entries(MESSAGES)) {
    nested[name] = {
      fields: Object.fromEntries(fields.map(([field, id, type, rule]) => [field, { id, type, ...(rule ? { rule } : {}) }])),
      ...(oneof ? { oneofs: { oneof: { oneof: [...oneof] } } } : {}),
    };
  }
  return { nested: { openapi: { nested: { v2: { nested } } } } };
}

const root = protobuf.Root.fromJSON(descriptor());

/** The `openapi.v2.Document` message type. */
export const GnosticDocument: protobuf.Type = root.lookupType('openapi.v2.Document');
