/**
 * core/v1 ServiceAccount: namespaced, with the `token` subresource (TokenRequest); printed with the
 * default columns.
 */
import { ServiceAccountSchema } from '../../api/core/v1/service-account.js';
import type { BuiltInKind } from './built-in-kind.js';

export const CoreServiceAccount: BuiltInKind = {
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  namespaced: true,
  schema: ServiceAccountSchema,
  shortNames: ['sa'],
  subresources: ['token'],
};
