/**
 * The template controller's ControllerConfig conditions (upstream pkg/controller/template/status.go,
 * docs/reference/api.md §2.4): Running while syncing a new generation, then Completed or Failing, each
 * change stamped with `observedGeneration`. Pure: returns the next status.
 */
import { ControllerConfigConditionType } from '../../api/machineconfiguration/v1/constants.js';
import type {
  ControllerConfig,
  ControllerConfigStatus,
  ControllerConfigStatusCondition,
} from '../../api/machineconfiguration/v1/controller-config.js';

type Conditions = readonly ControllerConfigStatusCondition[];

/** SetControllerConfigStatusCondition: a new status stamps the time; same status keeps it. */
function setCondition({
  conditions,
  type,
  status,
  message,
  now,
}: {
  readonly conditions: Conditions;
  readonly type: string;
  readonly status: 'True' | 'False';
  readonly message: string;
  readonly now: string;
}): ControllerConfigStatusCondition[] {
  const existing = conditions.find((c) => c.type === type);
  if (
    existing !== undefined &&
    existing.status === status &&
    (existing.reason ?? '') === '' &&
    (existing.message ?? '') === message
  )
    return [...conditions];
  const lastTransitionTime =
    existing !== undefined && existing.status === status ? existing.lastTransitionTime : now;
  const next: ControllerConfigStatusCondition = {
    type,
    status,
    lastTransitionTime,
    reason: '',
    message,
  };
  return [...conditions.filter((c) => c.type !== type), next];
}

const T = ControllerConfigConditionType;

function isTrue(conditions: Conditions, type: string): boolean {
  return conditions.find((c) => c.type === type)?.status === 'True';
}

/** syncRunningStatus: Running=True; Completed flips to False when a new generation arrives. */
export function runningStatus(
  cc: ControllerConfig,
  version: string,
  now: string,
): ControllerConfigStatus {
  const generation = cc.metadata.generation ?? 0;
  const reason = `syncing towards (${generation}) generation using controller version ${version}`;
  let conditions = setCondition({
    conditions: cc.status?.conditions ?? [],
    type: T.TemplateControllerRunning,
    status: 'True',
    message: reason,
    now,
  });
  if (
    generation !== (cc.status?.observedGeneration ?? 0) &&
    isTrue(conditions, T.TemplateControllerCompleted)
  ) {
    conditions = setCondition({
      conditions,
      type: T.TemplateControllerCompleted,
      status: 'False',
      message: `${reason} due to change in Generation`,
      now,
    });
  }
  return { ...cc.status, conditions, observedGeneration: generation };
}

/** syncFailingStatus: Failing=True with the error, Completed and Running False. */
export function failingStatus(
  cc: ControllerConfig,
  version: string,
  error: string,
  now: string,
): ControllerConfigStatus {
  const generation = cc.metadata.generation ?? 0;
  const message = `failed to syncing towards (${generation}) generation using controller version ${version}: ${error}`;
  let conditions = setCondition({
    conditions: cc.status?.conditions ?? [],
    type: T.TemplateControllerFailing,
    status: 'True',
    message,
    now,
  });
  conditions = setCondition({
    conditions,
    type: T.TemplateControllerCompleted,
    status: 'False',
    message: '',
    now,
  });
  conditions = setCondition({
    conditions,
    type: T.TemplateControllerRunning,
    status: 'False',
    message: '',
    now,
  });
  return { ...cc.status, conditions, observedGeneration: generation };
}

/** syncCompletedStatus: Completed=True, Running and Failing False. */
export function completedStatus(
  cc: ControllerConfig,
  version: string,
  now: string,
): ControllerConfigStatus {
  const generation = cc.metadata.generation ?? 0;
  const reason = `sync completed towards (${generation}) generation using controller version ${version}`;
  let conditions = setCondition({
    conditions: cc.status?.conditions ?? [],
    type: T.TemplateControllerCompleted,
    status: 'True',
    message: reason,
    now,
  });
  conditions = setCondition({
    conditions,
    type: T.TemplateControllerRunning,
    status: 'False',
    message: '',
    now,
  });
  conditions = setCondition({
    conditions,
    type: T.TemplateControllerFailing,
    status: 'False',
    message: '',
    now,
  });
  return { ...cc.status, conditions, observedGeneration: generation };
}
