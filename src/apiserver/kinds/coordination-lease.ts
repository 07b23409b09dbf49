/**
 * coordination.k8s.io/v1 Lease: namespaced; PUT of a missing lease creates it (as kubelets and
 * leader election rely on); the printer of `kubectl get leases` (the holder).
 */
import { LeaseSchema } from '../../api/coordination/v1/lease.js';
import { at, str } from '../http/json-access.js';
import { age, name } from '../http/printer-cells.js';
import { AgeColumn, NameColumn, column, type Printer } from '../http/table-types.js';
import type { BuiltInKind } from './built-in-kind.js';

const leasePrinter: Printer = {
  columns: [
    NameColumn,
    column(
      'Holder',
      'string',
      'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
    ),
    AgeColumn,
  ],
  row(lease, now) {
    return { cells: [name(lease), str(at(lease, 'spec', 'holderIdentity')), age(lease, now)] };
  },
};

export const CoordinationLease: BuiltInKind = {
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
  schema: LeaseSchema,
  strategy: { allowCreateOnUpdate: true },
  printer: leasePrinter,
};
