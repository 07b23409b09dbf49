/**
 * core/v1 Secret: namespaced; write-only `stringData` lands base64-encoded in `data`; size and key
 * validation (config-data-validation.ts); the printer of `kubectl get secrets`; the `type` field
 * selector.
 */
import { SecretSchema } from '../../api/core/v1/secret.js';
import type { KubeObject } from '../resource-store.js';
import { record, str } from '../http/json-access.js';
import { age, name } from '../http/printer-cells.js';
import { AgeColumn, NameColumn, column, type Printer } from '../http/table-types.js';
import { secretErrors } from '../store/config-data-validation.js';
import { isJsonMap } from '../store/json.js';
import type { BuiltInKind } from './built-in-kind.js';

const secretPrinter: Printer = {
  columns: [
    NameColumn,
    column(
      'Type',
      'string',
      'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
    ),
    column(
      'Data',
      'string',
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
    ),
    AgeColumn,
  ],
  row(secret, now) {
    return {
      cells: [
        name(secret),
        str(secret['type']),
        Object.keys(record(secret['data'])).length,
        age(secret, now),
      ],
    };
  },
};

/** Secret `stringData` is write-only: each entry lands base64-encoded in `data`. */
function mergeStringData(obj: KubeObject): void {
  const stringData = obj['stringData'];
  if (!isJsonMap(stringData)) return;
  const data = isJsonMap(obj['data']) ? obj['data'] : {};
  for (const [key, value] of Object.entries(stringData)) {
    data[key] = Buffer.from(String(value), 'utf8').toString('base64');
  }
  obj['data'] = data;
  delete obj['stringData'];
}

export const CoreSecret: BuiltInKind = {
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
  schema: SecretSchema,
  strategy: { normalize: mergeStringData, validate: secretErrors },
  printer: secretPrinter,
  fieldSelectors: {
    fields: ['type', 'metadata.namespace', 'metadata.name'],
    values: (obj) => ({ type: typeof obj['type'] === 'string' ? obj['type'] : '' }),
  },
};
