import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FieldPath, formatFieldError, formatFieldErrors } from '../field-errors.js';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isDNS1123SubdomainWithUnderscore,
  isDomainPrefixedPath,
  isFullyQualifiedDomainName,
  isFullyQualifiedName,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  isValidPathSegmentPrefix,
  isWildcardDNS1123Subdomain,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  qualifiedNameMessages,
  validateNamespaceName,
  validatePathSegmentName,
  validateRBACName,
  validateServiceName,
} from './names.js';

const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('isDNS1123Subdomain', () => {
  it('accepts subdomains up to 253 bytes', () => {
    for (const ok of ['a', 'example.com', 'a-b.c-d', '0', '1.2.3', 'x'.repeat(63), `${'a'.repeat(63)}.${'b'.repeat(63)}`, 'a'.repeat(253)]) {
      assert.deepEqual(isDNS1123Subdomain(ok), [], ok);
    }
  });
  it('rejects upper case, underscores, leading and trailing punctuation, empty labels', () => {
    for (const bad of ['', 'Web', 'a_b', '-a', 'a-', '.a', 'a.', 'a..b', 'a b', 'ä', 'a\n']) {
      assert.deepEqual(isDNS1123Subdomain(bad), [SUBDOMAIN], JSON.stringify(bad));
    }
  });
  it('reports length and format separately', () => {
    assert.deepEqual(isDNS1123Subdomain('a'.repeat(254)), ['must be no more than 253 characters']);
    assert.deepEqual(isDNS1123Subdomain(`${'A'.repeat(254)}`), ['must be no more than 253 characters', SUBDOMAIN]);
  });
  it('counts length in bytes', () => {
    assert.deepEqual(isDNS1123Subdomain('é'.repeat(127)), ['must be no more than 253 characters', SUBDOMAIN]);
  });
});

describe('isDNS1123Label', () => {
  it('accepts labels up to 63 bytes', () => {
    for (const ok of ['a', 'my-name', '123-abc', '0', 'a'.repeat(63)]) assert.deepEqual(isDNS1123Label(ok), [], ok);
  });
  it('says a dotted subdomain must not contain dots', () => {
    assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
  });
  it('rejects everything else with the label message', () => {
    for (const bad of ['', 'A', 'a_b', '-a', 'a-', 'a.B', '.a']) assert.deepEqual(isDNS1123Label(bad), [LABEL], bad);
  });
  it('reports length first', () => {
    assert.deepEqual(isDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters']);
    assert.deepEqual(isDNS1123Label(`${'a'.repeat(63)}.b`), ['must be no more than 63 characters', 'must not contain dots']);
  });
});

describe('isDNS1035Label', () => {
  it('accepts labels starting with a letter', () => {
    for (const ok of ['a', 'my-name', 'abc-123', 'a'.repeat(63)]) assert.deepEqual(isDNS1035Label(ok), [], ok);
  });
  it('rejects a leading digit, dots, upper case', () => {
    for (const bad of ['', '1abc', 'a.b', 'My', 'a-']) assert.deepEqual(isDNS1035Label(bad), [DNS1035], bad);
    assert.deepEqual(isDNS1035Label('a'.repeat(64)), ['must be no more than 63 characters']);
  });
});

describe('isDNS1123SubdomainWithUnderscore', () => {
  it('accepts underscores, even leading ones', () => {
    for (const ok of ['_tcp.example.com', 'a_b', '_a', 'a.b']) assert.deepEqual(isDNS1123SubdomainWithUnderscore(ok), [], ok);
  });
  it("keeps upstream's message, which shows the plain subdomain regex", () => {
    assert.deepEqual(isDNS1123SubdomainWithUnderscore('a_'), [
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
  });
});

describe('isWildcardDNS1123Subdomain', () => {
  it('accepts *. followed by a subdomain', () => {
    assert.deepEqual(isWildcardDNS1123Subdomain('*.example.com'), []);
  });
  it('rejects other wildcards', () => {
    const msg =
      "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    for (const bad of ['*', 'example.com', '*.*.example.com', 'f*.example.com', '*example.com']) {
      assert.deepEqual(isWildcardDNS1123Subdomain(bad), [msg], bad);
    }
  });
});

describe('isQualifiedName', () => {
  it('accepts names with and without a prefix', () => {
    for (const ok of ['MyName', 'my.name', '123-abc', 'a', 'example.com/MyName', 'k8s.io/a_b', 'a'.repeat(63), `${'p'.repeat(253)}/n`]) {
      assert.deepEqual(isQualifiedName(ok), [], ok);
    }
  });
  it('rejects a bad name part', () => {
    assert.deepEqual(isQualifiedName('foo_'), [NAME_PART]);
    assert.deepEqual(isQualifiedName('-a'), [NAME_PART]);
    assert.deepEqual(isQualifiedName('a b'), [NAME_PART]);
  });
  it('reports an empty name part, and its format', () => {
    assert.deepEqual(isQualifiedName(''), ['name part must be non-empty', NAME_PART]);
    assert.deepEqual(isQualifiedName('example.com/'), ['name part must be non-empty', NAME_PART]);
  });
  it('reports a long name part, and its format', () => {
    assert.deepEqual(isQualifiedName('a'.repeat(64)), ['name part must be no more than 63 characters']);
  });
  it('reports a bad or empty prefix', () => {
    assert.deepEqual(isQualifiedName('/a'), ['prefix part must be non-empty']);
    assert.deepEqual(isQualifiedName('Example.com/a'), [`prefix part ${SUBDOMAIN}`]);
    assert.deepEqual(isQualifiedName(`${'a'.repeat(254)}/a`), ['prefix part must be no more than 253 characters']);
  });
  it('rejects more than one slash with one message', () => {
    assert.deepEqual(isQualifiedName('a/b/c'), [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
  });
});

describe('isValidLabelValue', () => {
  it('accepts empty and valid values', () => {
    for (const ok of ['', 'MyValue', 'my_value', '12345', 'a.b-c_d', 'v'.repeat(63)]) assert.deepEqual(isValidLabelValue(ok), [], ok);
  });
  it('rejects long and malformed values', () => {
    assert.deepEqual(isValidLabelValue('v'.repeat(64)), ['must be no more than 63 characters']);
    assert.deepEqual(isValidLabelValue('-v'), [LABEL_VALUE]);
    assert.deepEqual(isValidLabelValue('a/b'), [LABEL_VALUE]);
    assert.deepEqual(isValidLabelValue(`${'v'.repeat(63)}_`), ['must be no more than 63 characters', LABEL_VALUE]);
  });
});

describe('fully qualified names and domain-prefixed paths', () => {
  const path = FieldPath.root('spec').child('driver');
  it('isFullyQualifiedName wants three segments', () => {
    assert.deepEqual(isFullyQualifiedName(path, 'a.b.c'), []);
    assert.equal(formatFieldErrors(isFullyQualifiedName(path, '')), 'spec.driver: Required value');
    assert.equal(
      formatFieldErrors(isFullyQualifiedName(path, 'a.b')),
      'spec.driver: Invalid value: "a.b": should be a domain with at least three segments separated by dots',
    );
    assert.equal(formatFieldErrors(isFullyQualifiedName(path, 'A.b.c')), `spec.driver: Invalid value: "A.b.c": ${SUBDOMAIN}`);
  });
  it('isFullyQualifiedDomainName wants two segments and allows a trailing dot', () => {
    assert.deepEqual(isFullyQualifiedDomainName(path, 'example.com.'), []);
    assert.equal(
      formatFieldErrors(isFullyQualifiedDomainName(path, 'example.')),
      'spec.driver: Invalid value: "example": should be a domain with at least two segments separated by dots',
    );
    assert.equal(
      formatFieldErrors(isFullyQualifiedDomainName(path, `${'a'.repeat(64)}.com`)),
      `spec.driver: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`,
    );
  });
  it('isDomainPrefixedPath wants host/path', () => {
    assert.deepEqual(isDomainPrefixedPath(path, 'acme.io/foo/bar'), []);
    assert.equal(
      formatFieldErrors(isDomainPrefixedPath(path, 'acme.io')),
      'spec.driver: Invalid value: "acme.io": must be a domain-prefixed path (such as "acme.io/foo")',
    );
    assert.equal(
      formatFieldErrors(isDomainPrefixedPath(path, 'acme.io/a b')),
      "spec.driver: Invalid value: \"a b\": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')",
    );
    assert.equal(formatFieldErrors(isDomainPrefixedPath(path, 'Acme.io/a')), `spec.driver: Invalid value: "Acme.io": ${SUBDOMAIN}`);
  });
});

describe('path segment names', () => {
  it('rejects . and .. exactly, and / and % anywhere', () => {
    assert.deepEqual(isValidPathSegmentName('.'), ["may not be '.'"]);
    assert.deepEqual(isValidPathSegmentName('..'), ["may not be '..'"]);
    assert.deepEqual(isValidPathSegmentName('...'), []);
    assert.deepEqual(isValidPathSegmentName('a/b%c'), ["may not contain '/'", "may not contain '%'"]);
    assert.deepEqual(isValidPathSegmentName('system:admin'), []);
  });
  it('lets a prefix be . or ..', () => {
    assert.deepEqual(isValidPathSegmentPrefix('.'), []);
    assert.deepEqual(validatePathSegmentName('..', true), []);
    assert.deepEqual(validatePathSegmentName('..', false), ["may not be '..'"]);
    assert.deepEqual(validatePathSegmentName('a%', true), ["may not contain '%'"]);
  });
  it('RBAC names ignore the prefix flag, as upstream does', () => {
    assert.deepEqual(validateRBACName('.', true), ["may not be '.'"]);
    assert.deepEqual(validateRBACName('Admin:Role', false), []);
  });
});

describe('name validators', () => {
  it('check names and generated-name prefixes', () => {
    assert.deepEqual(nameIsDNSSubdomain('web', false), []);
    assert.deepEqual(nameIsDNSSubdomain('Web', false), [SUBDOMAIN]);
    assert.deepEqual(nameIsDNSSubdomain('web-', false), [SUBDOMAIN]);
    assert.deepEqual(nameIsDNSSubdomain('web-', true), []);
    assert.deepEqual(nameIsDNSSubdomain('-', true), [SUBDOMAIN]);
    assert.deepEqual(nameIsDNSSubdomain('a-', true), []);
    assert.deepEqual(nameIsDNSSubdomain('.-', true), []);
    assert.deepEqual(nameIsDNSSubdomain('a.-', true), []); // upstream cuts the dot too: "aa"
    assert.deepEqual(nameIsDNSSubdomain('a...-', true), [SUBDOMAIN]);
    assert.deepEqual(nameIsDNSLabel('ns-', true), []);
    assert.deepEqual(nameIsDNSLabel('n.s-', true), ['must not contain dots']);
    assert.deepEqual(nameIsDNSLabel('Nx-', true), [LABEL]); // checked as "Na"
    assert.deepEqual(nameIsDNS1035Label('svc-', true), []);
    assert.deepEqual(nameIsDNS1035Label('1-', true), []);
    assert.deepEqual(nameIsDNS1035Label('1', true), [DNS1035]);
  });
  it('mask a trailing dash byte for byte, as upstream does', () => {
    assert.deepEqual(nameIsDNSSubdomain(`${'a'.repeat(253)}-`, true), []);
    assert.deepEqual(nameIsDNSSubdomain(`${'a'.repeat(254)}-`, true), ['must be no more than 253 characters']);
    assert.deepEqual(nameIsDNSSubdomain('é-', true), [SUBDOMAIN]);
    assert.deepEqual(nameIsDNSSubdomain(`${'a'.repeat(251)}é-`, true), [SUBDOMAIN]);
    assert.deepEqual(nameIsDNSSubdomain(`${'a'.repeat(252)}é-`, true), ['must be no more than 253 characters', SUBDOMAIN]);
  });
  it('namespaces are labels and services DNS-1035 labels', () => {
    assert.deepEqual(validateNamespaceName('kube-system', false), []);
    assert.deepEqual(validateNamespaceName('a.b', false), ['must not contain dots']);
    assert.deepEqual(validateServiceName('1web', false), [DNS1035]);
  });
  it('read as kubectl shows them', () => {
    const path = FieldPath.root('metadata').child('name');
    const errs = nameIsDNSSubdomain('Web', false).map((m) => formatFieldError({ type: 'FieldValueInvalid', field: String(path), value: 'Web', detail: m }));
    assert.deepEqual(errs, [`metadata.name: Invalid value: "Web": ${SUBDOMAIN}`]);
  });
});

/** A fixed corpus of strings near the edges of the name formats: short and long, ASCII and not, with slashes and dots. */
function nameCorpus(): string[] {
  const alphabet = ['a', 'Z', '0', '-', '_', '.', '/', 'é', ' ', 'k', '😀'];
  const out = ['', '/', 'a/', '/a', 'a/b/c', 'example.com/MyName', 'Example.com/x', `${'a'.repeat(253)}/x`, `${'a'.repeat(254)}/x`];
  for (const n of [62, 63, 64]) out.push('n'.repeat(n), `p.io/${'n'.repeat(n)}`, `${'é'.repeat(n)}`);
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let i = 0; i < 3000; i++) {
    let s = '';
    const length = next() % 12;
    for (let j = 0; j < length; j++) s += alphabet[next() % alphabet.length];
    out.push(s);
  }
  return out;
}

describe('shortcuts of the name checks', () => {
  const corpus = nameCorpus();
  it('isQualifiedName answers as its full check, also for a value it has seen before', () => {
    for (const value of corpus) {
      assert.deepEqual(isQualifiedName(value), qualifiedNameMessages(value), value);
      assert.deepEqual(isQualifiedName(value), qualifiedNameMessages(value), value);
    }
    assert.ok(corpus.some((v) => qualifiedNameMessages(v).length === 0) && corpus.some((v) => qualifiedNameMessages(v).length > 0));
  });
  it('a name part or prefix just too long, or a second slash, still gets the full messages', () => {
    assert.deepEqual(isQualifiedName('n'.repeat(63)), []);
    assert.deepEqual(isQualifiedName('n'.repeat(64)), ['name part must be no more than 63 characters']);
    assert.deepEqual(isQualifiedName(`${'p'.repeat(253)}/n`), []);
    assert.deepEqual(isQualifiedName(`${'p'.repeat(254)}/n`), ['prefix part must be no more than 253 characters']);
    assert.deepEqual(isQualifiedName('Example.com/n'), [`prefix part ${SUBDOMAIN}`]);
    assert.equal(isQualifiedName('a/b/c').length, 1);
  });
  it('labels and subdomains that match the pattern can only be too long', () => {
    assert.deepEqual(isDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters']);
    assert.deepEqual(isDNS1123Label('a'.repeat(63)), []);
    assert.deepEqual(isDNS1123Subdomain('a'.repeat(254)), ['must be no more than 253 characters']);
    assert.deepEqual(isDNS1123Subdomain(`${'é'.repeat(127)}`), ['must be no more than 253 characters', SUBDOMAIN]);
  });
  it('a generateName masks its dash the same way after any character', () => {
    assert.deepEqual(nameIsDNSSubdomain('web-', true), []);
    assert.deepEqual(nameIsDNSSubdomain('Web-', true), [SUBDOMAIN]); // checked as "Wea"
    assert.deepEqual(nameIsDNSSubdomain('a😀-', true), [SUBDOMAIN]); // a 4-byte character: three bytes stay
  });
});
