/**
 * core/v1 Namespace: cluster-scoped, no deletecollection; a new namespace is `Active` and its
 * deletion is finished by the namespace controller once its content is gone; the protobuf body of
 * `kubectl create namespace` (metadata and `spec.finalizers`).
 */
import { NamespaceSchema } from '../../api/core/v1/namespace.js';
import { err, ok, type Result } from '../../lib/result.js';
import { at, str } from '../http/json-access.js';
import { age, name } from '../http/printer-cells.js';
import {
  decodeUnknown,
  objectMeta,
  protobufFields,
  protobufText,
  type ProtobufError,
} from '../http/protobuf.js';
import { AgeColumn, NameColumn, column, type Printer } from '../http/table-types.js';
import { readPath } from '../store/json.js';
import { byType } from '../store/list-strategy.js';
import type { BuiltInKind } from './built-in-kind.js';

const namespacePrinter: Printer = {
  columns: [NameColumn, column('Status', 'string', 'The status of the namespace'), AgeColumn],
  row(ns, now) {
    // the API server always sets the phase; an object without one is still Active
    const phase = str(at(ns, 'status', 'phase'));
    return { cells: [name(ns), phase === '' ? 'Active' : phase, age(ns, now)] };
  },
};

/** A protobuf Namespace body as the JSON object the store accepts. */
export function decodeNamespace(body: Uint8Array): Result<Record<string, unknown>, ProtobufError> {
  const unknown = decodeUnknown(body);
  if (!unknown.ok) return unknown;
  const { apiVersion, kind, raw } = unknown.value;
  if (kind !== 'Namespace')
    return err({ kind: 'ProtobufDecodeError', reason: `unexpected kind ${JSON.stringify(kind)}` });
  try {
    const top = protobufFields(raw);
    const metadata = top.find((f) => f.number === 1);
    const spec = top.find((f) => f.number === 2);
    const object: Record<string, unknown> = {
      apiVersion: apiVersion === '' ? 'v1' : apiVersion,
      kind,
      metadata: metadata?.bytes === undefined ? {} : objectMeta(metadata.bytes),
    };
    const finalizers =
      spec?.bytes === undefined
        ? []
        : protobufFields(spec.bytes)
            .filter((f) => f.number === 1)
            .map(protobufText);
    object['spec'] = finalizers.length > 0 ? { finalizers } : {};
    return ok(object);
  } catch (e) {
    return err({ kind: 'ProtobufDecodeError', reason: (e as Error).message });
  }
}

export const CoreNamespace: BuiltInKind = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
  schema: NamespaceSchema,
  shortNames: ['ns'],
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: ['status'],
  strategy: { statusOnCreate: () => ({ phase: 'Active' }), controllerFinalized: true },
  printer: namespacePrinter,
  mergeKeys: { 'status.conditions': byType },
  fieldSelectors: {
    fields: ['status.phase', 'metadata.name'],
    values: (obj) => {
      const phase = readPath(obj, ['status', 'phase']);
      return { 'status.phase': typeof phase === 'string' ? phase : '' };
    },
  },
  protobuf: decodeNamespace,
};
