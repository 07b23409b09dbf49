/**
 * core/v1 Event: namespaced; PUT of a missing event creates it (as event recorders rely on); the
 * printer of `kubectl get events`; the involvedObject, reason, source and type field selectors.
 */
import { EventSchema } from '../../api/core/v1/event.js';
import type { KubeObject } from '../resource-store.js';
import { ageOf } from '../http/human-duration.js';
import { at, num, str } from '../http/json-access.js';
import { name } from '../http/printer-cells.js';
import { NameDescription, column, type Printer } from '../http/table-types.js';
import { isJsonMap } from '../store/json.js';
import type { BuiltInKind } from './built-in-kind.js';

const FieldPathDescription =
  'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.';

const firstNonEmpty = (a: string, b: string): string => (a !== '' ? a : b);

function eventSource(event: KubeObject): string {
  const component = firstNonEmpty(
    str(at(event, 'source', 'component')),
    str(event['reportingComponent']),
  );
  const instance = firstNonEmpty(str(at(event, 'source', 'host')), str(event['reportingInstance']));
  return instance === '' ? component : `${component}, ${instance}`;
}

const eventPrinter: Printer = {
  columns: [
    column(
      'Last Seen',
      'string',
      'The time at which the most recent occurrence of this event was recorded.',
    ),
    column(
      'Type',
      'string',
      'Type of this event (Normal, Warning), new types could be added in the future',
    ),
    column(
      'Reason',
      'string',
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    column('Object', 'string', 'The object that this event is about.'),
    column('Subobject', 'string', FieldPathDescription, { priority: 1 }),
    column(
      'Source',
      'string',
      'The component reporting this event. Should be a short machine understandable string.',
      { priority: 1 },
    ),
    column('Message', 'string', 'A human-readable description of the status of this operation.'),
    column(
      'First Seen',
      'string',
      'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
      { priority: 1 },
    ),
    column('Count', 'string', 'The number of times this event has occurred.', { priority: 1 }),
    column('Name', 'string', NameDescription, { priority: 1, format: 'name' }),
  ],
  row(event, now) {
    const first =
      str(event['firstTimestamp']) !== ''
        ? ageOf(event['firstTimestamp'], now)
        : ageOf(event['eventTime'], now);
    let last = str(event['lastTimestamp']) !== '' ? ageOf(event['lastTimestamp'], now) : first;
    let count = num(event['count']);
    const series = event['series'];
    if (series !== undefined && series !== null) {
      last = ageOf(at(series, 'lastObservedTime'), now);
      count = num(at(series, 'count'));
    } else if (count === 0) {
      // singleton events of the events.k8s.io API carry no count
      count = 1;
    }
    const kind = str(at(event, 'involvedObject', 'kind')).toLowerCase();
    const objectName = str(at(event, 'involvedObject', 'name'));
    return {
      cells: [
        last,
        str(event['type']),
        str(event['reason']),
        objectName === '' ? kind : `${kind}/${objectName}`,
        str(at(event, 'involvedObject', 'fieldPath')),
        eventSource(event),
        str(event['message']).trim(),
        first,
        count,
        name(event),
      ],
    };
  },
};

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function eventFields(obj: KubeObject): Record<string, string> {
  const ref = isJsonMap(obj['involvedObject']) ? obj['involvedObject'] : {};
  const source = isJsonMap(obj['source']) ? text(obj['source']['component']) : '';
  return {
    'involvedObject.kind': text(ref['kind']),
    'involvedObject.namespace': text(ref['namespace']),
    'involvedObject.name': text(ref['name']),
    'involvedObject.uid': text(ref['uid']),
    'involvedObject.apiVersion': text(ref['apiVersion']),
    'involvedObject.resourceVersion': text(ref['resourceVersion']),
    'involvedObject.fieldPath': text(ref['fieldPath']),
    reason: text(obj['reason']),
    reportingComponent: text(obj['reportingComponent']),
    source: source === '' ? text(obj['reportingComponent']) : source,
    type: text(obj['type']),
  };
}

export const CoreEvent: BuiltInKind = {
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
  schema: EventSchema,
  shortNames: ['ev'],
  strategy: { allowCreateOnUpdate: true },
  printer: eventPrinter,
  fieldSelectors: {
    fields: [
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
      'metadata.namespace',
      'metadata.name',
    ],
    values: eventFields,
  },
};
