import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { LabelSelector } from './label-selector.js';
import {
  describeLabelSelectorError,
  describeSelectorParseError,
  isEmptySelector,
  labelSelectorToRequirements,
  labelSelectorToString,
  matchesLabelSelector,
  matchesRequirements,
  parseSelectorString,
  requirementsToString,
} from './label-selector-matching.js';

const NAME_PART_REGEX =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_REGEX =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const worker = 'node-role.kubernetes.io/worker';
const role = 'machineconfiguration.openshift.io/role';

describe('matchesLabelSelector', () => {
  it.each<[string, LabelSelector | undefined, Record<string, string> | undefined, boolean]>([
    ['nil selector matches nothing', undefined, { a: 'b' }, false],
    ['empty selector matches everything', {}, { a: 'b' }, true],
    ['empty selector matches unlabelled', { matchLabels: {} }, undefined, true],
    ['matchLabels equal', { matchLabels: { [role]: 'worker' } }, { [role]: 'worker' }, true],
    ['matchLabels other value', { matchLabels: { [role]: 'worker' } }, { [role]: 'master' }, false],
    ['matchLabels missing key', { matchLabels: { [role]: 'worker' } }, {}, false],
    ['matchLabels empty value', { matchLabels: { [worker]: '' } }, { [worker]: '' }, true],
    [
      'In hit',
      { matchExpressions: [{ key: role, operator: 'In', values: ['worker', 'infra'] }] },
      { [role]: 'infra' },
      true,
    ],
    [
      'In missing key',
      { matchExpressions: [{ key: role, operator: 'In', values: ['worker'] }] },
      {},
      false,
    ],
    [
      'NotIn missing key',
      { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['x'] }] },
      {},
      true,
    ],
    [
      'NotIn listed value',
      { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['x'] }] },
      { a: 'x' },
      false,
    ],
    ['Exists', { matchExpressions: [{ key: 'a', operator: 'Exists' }] }, { a: '' }, true],
    ['Exists missing', { matchExpressions: [{ key: 'a', operator: 'Exists' }] }, { b: '' }, false],
    ['DoesNotExist', { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, {}, true],
    [
      'DoesNotExist present',
      { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] },
      { a: 'x' },
      false,
    ],
    [
      'requirements are ANDed',
      {
        matchLabels: { [worker]: '' },
        matchExpressions: [{ key: 'kubernetes.io/os', operator: 'NotIn', values: ['windows'] }],
      },
      { [worker]: '', 'kubernetes.io/os': 'windows' },
      false,
    ],
    [
      'unknown operator selects nothing',
      { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['x'] }] },
      { a: 'x' },
      false,
    ],
    ['invalid key selects nothing', { matchLabels: { 'bad key': 'x' } }, { 'bad key': 'x' }, false],
    [
      'In without values is invalid',
      { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      { a: '' },
      false,
    ],
  ])('%s', (_name, selector, labels, expected) => {
    expect(matchesLabelSelector(selector, labels)).toBe(expected);
  });
});

describe('isEmptySelector', () => {
  it.each<[LabelSelector | undefined, boolean]>([
    [undefined, false],
    [{}, true],
    [{ matchLabels: {}, matchExpressions: [] }, true],
    [{ matchLabels: { a: 'b' } }, false],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }, false],
  ])('%j → %s', (selector, expected) => {
    expect(isEmptySelector(selector)).toBe(expected);
  });
});

describe('labelSelectorToString', () => {
  it.each<[string, LabelSelector | undefined, string]>([
    ['nil', undefined, ''],
    ['empty', {}, ''],
    ['one label', { matchLabels: { [role]: 'worker' } }, `${role}=worker`],
    ['empty label value', { matchLabels: { [worker]: '' } }, `${worker}=`],
    ['labels sorted by key', { matchLabels: { z: '1', a: '2', m: '3' } }, 'a=2,m=3,z=1'],
    [
      'In values sorted',
      { matchExpressions: [{ key: role, operator: 'In', values: ['worker', 'infra'] }] },
      `${role} in (infra,worker)`,
    ],
    [
      'NotIn single',
      { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['x'] }] },
      'a notin (x)',
    ],
    [
      'everything, sorted by key',
      {
        matchLabels: { b: '2', a: '1' },
        matchExpressions: [
          { key: 'c', operator: 'In', values: ['y', 'x'] },
          { key: 'd', operator: 'DoesNotExist' },
          { key: 'a0', operator: 'Exists' },
        ],
      },
      'a=1,a0,b=2,c in (x,y),!d',
    ],
  ])('%s', (_name, selector, expected) => {
    expect(labelSelectorToString(selector)).toBe(expected);
  });
});

describe('labelSelectorToRequirements errors', () => {
  it.each<[string, LabelSelector, string]>([
    [
      'unknown operator',
      { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['x'] }] },
      '"Equals" is not a valid label selector operator',
    ],
    [
      'In without values',
      { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      'Exists with values',
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      'values: Invalid value: ["x"]: values set must be empty for exists and does not exist',
    ],
    ['bad key', { matchLabels: { '-a': 'x' } }, `key: Invalid value: "-a": ${NAME_PART_REGEX}`],
    [
      'bad value',
      { matchLabels: { a: 'x y' } },
      `values[0][a]: Invalid value: "x y": ${LABEL_VALUE_REGEX}`,
    ],
    [
      'key and value both bad',
      { matchLabels: { '-a': '-x' } },
      `[key: Invalid value: "-a": ${NAME_PART_REGEX}, values[0][-a]: Invalid value: "-x": ${LABEL_VALUE_REGEX}]`,
    ],
  ])('%s', (_name, selector, message) => {
    const r = labelSelectorToRequirements(selector);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(describeLabelSelectorError(r.error)).toBe(message);
  });
});

describe('parseSelectorString', () => {
  it.each<[string, string]>([
    ['', ''],
    ['a=b', 'a=b'],
    ['  a = b  ', 'a=b'],
    ['a==b', 'a==b'],
    ['a!=b', 'a!=b'],
    ['a', 'a'],
    ['!a', '!a'],
    ['a=', 'a='],
    ['z=1,a=2', 'a=2,z=1'],
    ['x in (b,a)', 'x in (a,b)'],
    ['x in (a,a)', 'x in (a)'],
    ['x notin (a)', 'x notin (a)'],
    ['x in ()', 'x in ()'],
    ['x in (a,)', 'x in (,a)'],
    ['in in (in)', 'in in (in)'],
    ['x>1', 'x>1'],
    ['x<3', 'x<3'],
    [`${role}=worker,${worker}`, `${role}=worker,${worker}`],
    ['x in (foo,,baz),y,z notin ()', 'x in (,baz,foo),y,z notin ()'],
  ])('%j parses to %j', (input, printed) => {
    const r = parseSelectorString(input);
    expect(r.ok).toBe(true);
    if (r.ok) expect(requirementsToString(r.value)).toBe(printed);
  });

  it.each<[string, string]>([
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['x gt 1', "unable to parse requirement: found 'gt', expected: in, notin, =, ==, !=, gt, lt"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['x in (a,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['x=(a)', "unable to parse requirement: found '(', expected: identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['x=a,', "found '', expected: identifier after ','"],
    ['x,,y', "found ',', expected: identifier after ','"],
    ['x=a y', "found 'y', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ['-x=1', `unable to parse requirement: <nil>: Invalid value: "-x": ${NAME_PART_REGEX}`],
    [
      'x=-a',
      `unable to parse requirement: values[0][x]: Invalid value: "-a": ${LABEL_VALUE_REGEX}`,
    ],
    [
      'x>a',
      `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    [
      'a/b/c',
      `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ],
    [
      'Example.com/a',
      `unable to parse requirement: <nil>: Invalid value: "Example.com/a": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
  ])('%j fails with the apiserver text', (input, message) => {
    const r = parseSelectorString(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(describeSelectorParseError(r.error)).toBe(message);
  });

  it.each<[string, Record<string, string>, boolean]>([
    ['a=b', { a: 'b' }, true],
    ['a==b', { a: 'c' }, false],
    ['a!=b', {}, true],
    ['a!=b', { a: 'b' }, false],
    ['x in (a,b),!y', { x: 'b' }, true],
    ['x in (a,b),!y', { x: 'b', y: '' }, false],
    ['x notin (a)', { x: 'a' }, false],
    ['n>5', { n: '6' }, true],
    ['n>5', { n: '5' }, false],
    ['n<5', { n: 'x' }, false],
    ['n<5', {}, false],
    ['', { anything: 'x' }, true],
  ])('%j on %j → %s', (input, labels, expected) => {
    const r = parseSelectorString(input);
    expect(r.ok).toBe(true);
    if (r.ok) expect(matchesRequirements(r.value, labels)).toBe(expected);
  });
});

describe('round trip', () => {
  const key = fc.stringMatching(/^[a-z]([a-z0-9-]{0,8}[a-z0-9])?(\/[a-z]{1,5})?$/);
  const value = fc.stringMatching(/^([A-Za-z0-9]([A-Za-z0-9_.-]{0,6}[A-Za-z0-9])?)?$/);
  const expression = fc.oneof(
    fc.record({
      key,
      operator: fc.constantFrom('In', 'NotIn'),
      values: fc.uniqueArray(value, { minLength: 1, maxLength: 3 }),
    }),
    fc.record({ key, operator: fc.constantFrom('Exists', 'DoesNotExist') }),
  );
  const selector = fc.record(
    {
      matchLabels: fc.dictionary(key, value, { maxKeys: 3 }),
      matchExpressions: fc.array(expression, { maxLength: 3 }),
    },
    { requiredKeys: [] },
  );

  it('printing then parsing keeps the string and the matches', () => {
    fc.assert(
      fc.property(selector, fc.dictionary(key, value, { maxKeys: 4 }), (sel, labels) => {
        const printed = labelSelectorToString(sel);
        const parsed = parseSelectorString(printed);
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        expect(requirementsToString(parsed.value)).toBe(printed);
        expect(matchesRequirements(parsed.value, labels)).toBe(matchesLabelSelector(sel, labels));
      }),
    );
  });
});
