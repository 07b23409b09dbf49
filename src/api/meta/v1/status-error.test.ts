import { describe, expect, it } from 'vitest';
import { FieldErrorType, invalidField, notSupportedField, requiredField } from './field-error.js';
import { isStatusError, StatusError, type GroupResource } from './status-error.js';

const mcp: GroupResource = {
  group: 'machineconfiguration.openshift.io',
  resource: 'machineconfigpools',
};
const kc: GroupResource = {
  group: 'machineconfiguration.openshift.io',
  resource: 'kubeletconfigs',
};
const pods: GroupResource = { group: '', resource: 'pods' };

describe('StatusError messages', () => {
  it.each<[string, StatusError, string, string, number]>([
    [
      'not found',
      StatusError.notFound(mcp, 'nosuch'),
      'machineconfigpools.machineconfiguration.openshift.io "nosuch" not found',
      'NotFound',
      404,
    ],
    [
      'not found, core group',
      StatusError.notFound(pods, 'web-1'),
      'pods "web-1" not found',
      'NotFound',
      404,
    ],
    [
      'namespace not found',
      StatusError.notFound({ group: '', resource: 'namespaces' }, 'nosuch'),
      'namespaces "nosuch" not found',
      'NotFound',
      404,
    ],
    [
      'already exists',
      StatusError.alreadyExists(kc, 'set-max-pods'),
      'kubeletconfigs.machineconfiguration.openshift.io "set-max-pods" already exists',
      'AlreadyExists',
      409,
    ],
    [
      'conflict',
      StatusError.conflict(mcp, 'worker'),
      'Operation cannot be fulfilled on machineconfigpools.machineconfiguration.openshift.io "worker": the object has been modified; please apply your changes to the latest version and try again',
      'Conflict',
      409,
    ],
    [
      'bad request',
      StatusError.badRequest('strict decoding error: unknown field "sepc"'),
      'strict decoding error: unknown field "sepc"',
      'BadRequest',
      400,
    ],
    [
      'forbidden',
      StatusError.forbidden(
        mcp,
        'worker',
        'User "bob" cannot patch resource "machineconfigpools" in API group "machineconfiguration.openshift.io" at the cluster scope',
      ),
      'machineconfigpools.machineconfiguration.openshift.io "worker" is forbidden: User "bob" cannot patch resource "machineconfigpools" in API group "machineconfiguration.openshift.io" at the cluster scope',
      'Forbidden',
      403,
    ],
    [
      'forbidden without name',
      StatusError.forbidden(mcp, '', 'nope'),
      'machineconfigpools.machineconfiguration.openshift.io is forbidden: nope',
      'Forbidden',
      403,
    ],
    [
      'forbidden without resource',
      StatusError.forbidden({ group: '', resource: '' }, '', 'nope'),
      'forbidden: nope',
      'Forbidden',
      403,
    ],
    ['unauthorized', StatusError.unauthorized(), 'Unauthorized', 'Unauthorized', 401],
    ['unauthorized, empty', StatusError.unauthorized(''), 'not authorized', 'Unauthorized', 401],
    ['gone', StatusError.gone('the resource is gone'), 'the resource is gone', 'Gone', 410],
    [
      'too old',
      StatusError.tooOldResourceVersion(119, 121),
      'too old resource version: 119 (120)',
      'Expired',
      410,
    ],
    [
      'unsupported media type',
      StatusError.unsupportedMediaType([
        'application/json-patch+json',
        'application/merge-patch+json',
        'application/apply-patch+yaml',
      ]),
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      'UnsupportedMediaType',
      415,
    ],
    [
      'not acceptable',
      StatusError.notAcceptable(['application/json', 'application/yaml']),
      'only the following media types are accepted: application/json, application/yaml',
      'NotAcceptable',
      406,
    ],
    [
      'method not supported',
      StatusError.methodNotSupported(mcp, 'deletecollection'),
      'deletecollection is not supported on resources of kind "machineconfigpools.machineconfiguration.openshift.io"',
      'MethodNotAllowed',
      405,
    ],
    [
      'internal',
      StatusError.internal(new Error('disk full')),
      'Internal error occurred: disk full',
      'InternalError',
      500,
    ],
    [
      'name is Go-quoted',
      StatusError.notFound(pods, 'a"b\n'),
      'pods "a\\"b\\n" not found',
      'NotFound',
      404,
    ],
  ])('%s', (_name, e, message, reason, code) => {
    expect(e.message).toBe(message);
    expect(e.reason).toBe(reason);
    expect(e.code).toBe(code);
    expect(e.name).toBe('StatusError');
    expect(e).toBeInstanceOf(Error);
  });
});

describe('StatusError.toStatus', () => {
  it('NotFound is byte-identical to the real apiserver body', () => {
    expect(JSON.stringify(StatusError.notFound(mcp, 'nosuch').toStatus())).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"machineconfigpools.machineconfiguration.openshift.io \\"nosuch\\" not found","reason":"NotFound","details":{"name":"nosuch","group":"machineconfiguration.openshift.io","kind":"machineconfigpools"},"code":404}',
    );
  });

  it('leaves the core group out of details', () => {
    expect(StatusError.notFound(pods, 'web-7d4b9c-abcde').toStatus().details).toEqual({
      name: 'web-7d4b9c-abcde',
      kind: 'pods',
    });
  });

  it('UnsupportedMediaType has no details', () => {
    expect(
      JSON.stringify(StatusError.unsupportedMediaType(['application/json-patch+json']).toStatus()),
    ).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json-patch+json","reason":"UnsupportedMediaType","code":415}',
    );
  });

  it('Invalid carries the Kind and one cause per field error', () => {
    const e = StatusError.invalid(
      { group: 'machineconfiguration.openshift.io', kind: 'MachineConfig' },
      '99-bad',
      [invalidField('spec.config.ignition.version', '2.2.0', 'must be 3.x')],
    );
    expect(e.message).toBe(
      'MachineConfig.machineconfiguration.openshift.io "99-bad" is invalid: spec.config.ignition.version: Invalid value: "2.2.0": must be 3.x',
    );
    expect(e.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'MachineConfig.machineconfiguration.openshift.io "99-bad" is invalid: spec.config.ignition.version: Invalid value: "2.2.0": must be 3.x',
      reason: 'Invalid',
      details: {
        name: '99-bad',
        group: 'machineconfiguration.openshift.io',
        kind: 'MachineConfig',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "2.2.0": must be 3.x',
            field: 'spec.config.ignition.version',
          },
        ],
      },
      code: 422,
    });
  });

  it('Invalid with an empty name (apply without fieldManager)', () => {
    const e = StatusError.invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
      requiredField('fieldManager', 'is required for apply patch'),
    ]);
    expect(e.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    expect(e.toStatus().details).toEqual({
      group: 'meta.k8s.io',
      kind: 'PatchOptions',
      causes: [
        {
          reason: 'FieldValueRequired',
          message: 'Required value: is required for apply patch',
          field: 'fieldManager',
        },
      ],
    });
  });

  it('Invalid aggregates several errors in brackets and drops duplicates', () => {
    const errors = [
      requiredField('metadata.name', 'name or generateName is required'),
      notSupportedField('spec.kernelType', 'rt', ['default', 'realtime', '64k-pages']),
      requiredField('metadata.name', 'name or generateName is required'),
    ];
    const e = StatusError.invalid(
      { group: 'machineconfiguration.openshift.io', kind: 'MachineConfig' },
      'x',
      errors,
    );
    expect(e.message).toBe(
      'MachineConfig.machineconfiguration.openshift.io "x" is invalid: [metadata.name: Required value: name or generateName is required, spec.kernelType: Unsupported value: "rt": supported values: "default", "realtime", "64k-pages"]',
    );
    expect(e.details?.causes).toHaveLength(3);
  });

  it('Invalid without errors has no trailing colon', () => {
    expect(StatusError.invalid({ group: '', kind: 'Pod' }, 'p', []).message).toBe(
      'Pod "p" is invalid',
    );
  });

  it('TooManyRequests from a disruption budget', () => {
    expect(StatusError.disruptionBudgetViolated('etcd-quorum-guard', 2, 2).toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: 'TooManyRequests',
      details: {
        causes: [
          {
            reason: 'DisruptionBudget',
            message:
              'The disruption budget etcd-quorum-guard needs 2 healthy pods and has 2 currently',
          },
        ],
      },
      code: 429,
    });
  });

  it('TooManyRequests keeps a non-zero retry-after', () => {
    expect(StatusError.tooManyRequests('slow down', 3).toStatus().details).toEqual({
      retryAfterSeconds: 3,
    });
  });

  it('Internal repeats the cause', () => {
    const cause = new Error('disk full');
    const e = StatusError.internal(cause);
    expect(e.cause).toBe(cause);
    expect(e.toStatus().details).toEqual({ causes: [{ message: 'disk full' }] });
  });
});

describe('fromStatus and isStatusError', () => {
  it('round-trips through the wire form', () => {
    const original = StatusError.conflict(mcp, 'worker');
    const back = StatusError.fromStatus(JSON.parse(JSON.stringify(original.toStatus())) as never);
    expect(back).toBeInstanceOf(StatusError);
    expect(back.message).toBe(original.message);
    expect(back.reason).toBe('Conflict');
    expect(back.code).toBe(409);
    expect(back.toStatus()).toEqual(original.toStatus());
  });

  it.each<[unknown, Parameters<typeof isStatusError>[1], boolean]>([
    [StatusError.notFound(mcp, 'x'), undefined, true],
    [StatusError.notFound(mcp, 'x'), 'NotFound', true],
    [StatusError.notFound(mcp, 'x'), 'AlreadyExists', false],
    [StatusError.alreadyExists(mcp, 'x'), 'AlreadyExists', true],
    [new Error('NotFound'), undefined, false],
    [{ reason: 'NotFound' }, 'NotFound', false],
    [undefined, undefined, false],
  ])('isStatusError(%#, %s) → %s', (e, reason, expected) => {
    expect(isStatusError(e, reason)).toBe(expected);
  });
});

describe('field errors', () => {
  it('hides the value for Required and Forbidden', () => {
    const e = StatusError.invalid({ group: '', kind: 'Pod' }, 'p', [
      {
        type: FieldErrorType.Forbidden,
        field: 'spec.nodeName',
        badValue: 'x',
        detail: 'may not be set',
      },
    ]);
    expect(e.message).toBe('Pod "p" is invalid: spec.nodeName: Forbidden: may not be set');
  });

  it('prints numbers, booleans, lists and null like Go', () => {
    const e = StatusError.invalid({ group: '', kind: 'Pod' }, 'p', [
      invalidField('a', 5, 'n'),
      invalidField('b', true, 'b'),
      invalidField('c', ['x', '<y>'], 'l'),
      invalidField('d', null, 'z'),
    ]);
    expect(e.message).toBe(
      'Pod "p" is invalid: [a: Invalid value: 5: n, b: Invalid value: true: b, c: Invalid value: ["x","\\u003cy\\u003e"]: l, d: Invalid value: null: z]',
    );
  });
});
