/**
 * core/v1 ConfigMap: namespaced; size and key validation (config-data-validation.ts); the printer
 * of `kubectl get configmaps` (the count of data and binaryData keys).
 */
import { ConfigMapSchema } from '../../api/core/v1/config-map.js';
import { record } from '../http/json-access.js';
import { age, name } from '../http/printer-cells.js';
import { AgeColumn, NameColumn, column, type Printer } from '../http/table-types.js';
import { configMapErrors } from '../store/config-data-validation.js';
import type { BuiltInKind } from './built-in-kind.js';

const configMapPrinter: Printer = {
  columns: [
    NameColumn,
    column(
      'Data',
      'string',
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
    ),
    AgeColumn,
  ],
  row(cm, now) {
    const size =
      Object.keys(record(cm['data'])).length + Object.keys(record(cm['binaryData'])).length;
    return { cells: [name(cm), size, age(cm, now)] };
  },
};

export const CoreConfigMap: BuiltInKind = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  schema: ConfigMapSchema,
  shortNames: ['cm'],
  strategy: { validate: configMapErrors },
  printer: configMapPrinter,
};
