/**
 * The components as pods: the operator, controller and dashboard as Deployments, the machine
 * config server on the masters and the daemon on every node as DaemonSets, one image for all
 * (deploy/Containerfile). Every component reaches the API with its ServiceAccount's in-cluster
 * credentials; the daemon writes its own Node with the kubelet's kubeconfig on the host, as
 * upstream's does. `REGISTRY` and `CLUSTER_DOMAIN` are placeholders the administrator fills in.
 */
import { McoNamespace } from '../api/machineconfiguration/v1/constants.js';
import { McoVersion } from '../version.js';
import {
  NodeBootstrapperTokenSecret,
  ServiceAccountName,
  type Component,
} from './component-rbac.js';
import type { Manifest } from './manifest.js';

export const McoImage = `REGISTRY/mco:${McoVersion.raw}`;
/** The kubelet's kubeconfig on the host (a path on the node, read under the daemon's --root). */
const KubeletKubeconfig = '/var/lib/kubelet/kubeconfig';

const MasterSelector = { 'node-role.kubernetes.io/master': '' };
const MasterToleration = [
  { key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' },
];

interface PodSpec {
  readonly [field: string]: unknown;
}

function template(app: string, spec: PodSpec) {
  return {
    selector: { matchLabels: { 'k8s-app': app } },
    template: { metadata: { labels: { 'k8s-app': app } }, spec },
  };
}

function deployment(name: string, spec: PodSpec): Manifest {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: McoNamespace },
    spec: { replicas: 1, ...template(name, spec) },
  };
}

function daemonSet(name: string, spec: PodSpec, extra: Record<string, unknown> = {}): Manifest {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: McoNamespace },
    spec: { ...template(name, spec), ...extra },
  };
}

const metricsPort = [{ name: 'metrics', containerPort: 9001 }];

function operatorWorkload(): Manifest {
  return deployment(ServiceAccountName.operator, {
    serviceAccountName: ServiceAccountName.operator,
    nodeSelector: MasterSelector,
    tolerations: MasterToleration,
    containers: [
      {
        name: 'machine-config-operator',
        image: McoImage,
        args: [
          'operator',
          '--leader-elect',
          '--mcs-url=https://api-int.CLUSTER_DOMAIN:22623',
          '--mcs-ca-file=/etc/mcs/ca.crt',
          '--metrics-port=9001',
          '--metrics-address=0.0.0.0',
        ],
        ports: metricsPort,
        volumeMounts: [{ name: 'mcs-ca', mountPath: '/etc/mcs', readOnly: true }],
      },
    ],
    volumes: [
      {
        name: 'mcs-ca',
        secret: {
          secretName: 'machine-config-server-tls',
          items: [{ key: 'ca.crt', path: 'ca.crt' }],
        },
      },
    ],
  });
}

function controllerWorkload(): Manifest {
  return deployment(ServiceAccountName.controller, {
    serviceAccountName: ServiceAccountName.controller,
    nodeSelector: MasterSelector,
    tolerations: MasterToleration,
    containers: [
      {
        name: 'machine-config-controller',
        image: McoImage,
        args: ['controller', '--leader-elect', '--metrics-port=9001', '--metrics-address=0.0.0.0'],
        ports: metricsPort,
      },
    ],
  });
}

function serverWorkload(): Manifest {
  return daemonSet(ServiceAccountName.server, {
    serviceAccountName: ServiceAccountName.server,
    hostNetwork: true,
    nodeSelector: MasterSelector,
    tolerations: MasterToleration,
    containers: [
      {
        name: 'machine-config-server',
        image: McoImage,
        args: [
          'server',
          '--cert=/etc/mcs/tls/tls.crt',
          '--key=/etc/mcs/tls/tls.key',
          '--apiserver-url=https://api-int.CLUSTER_DOMAIN:6443',
          '--bootstrap-token-dir=/etc/mcs/bootstrap-token',
        ],
        volumeMounts: [
          { name: 'tls', mountPath: '/etc/mcs/tls', readOnly: true },
          { name: 'bootstrap-token', mountPath: '/etc/mcs/bootstrap-token', readOnly: true },
        ],
      },
    ],
    volumes: [
      { name: 'tls', secret: { secretName: 'machine-config-server-tls' } },
      { name: 'bootstrap-token', secret: { secretName: NodeBootstrapperTokenSecret } },
    ],
  });
}

function daemonWorkload(): Manifest {
  return daemonSet(
    ServiceAccountName.daemon,
    {
      serviceAccountName: ServiceAccountName.daemon,
      hostNetwork: true,
      hostPID: true,
      priorityClassName: 'system-node-critical',
      terminationGracePeriodSeconds: 600,
      tolerations: [{ operator: 'Exists' }],
      containers: [
        {
          name: 'machine-config-daemon',
          image: McoImage,
          args: [
            'daemon',
            '--node=$(NODE_NAME)',
            '--root=/rootfs',
            '--host=coreos',
            `--node-kubeconfig=${KubeletKubeconfig}`,
            '--metrics-port=8797',
          ],
          env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
          securityContext: { privileged: true },
          volumeMounts: [
            { name: 'rootfs', mountPath: '/rootfs', mountPropagation: 'HostToContainer' },
          ],
        },
      ],
      volumes: [{ name: 'rootfs', hostPath: { path: '/' } }],
    },
    { updateStrategy: { rollingUpdate: { maxUnavailable: '10%' } } },
  );
}

function dashboardWorkloads(): Manifest[] {
  const name = ServiceAccountName.dashboard;
  return [
    deployment(name, {
      serviceAccountName: name,
      containers: [
        {
          name: 'dashboard',
          image: McoImage,
          args: ['dashboard', '--listen=0.0.0.0:8080', '--assets-dir=/opt/mco/dist/web'],
          ports: [{ name: 'http', containerPort: 8080 }],
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 } },
        },
      ],
    }),
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: McoNamespace },
      spec: {
        selector: { 'k8s-app': name },
        ports: [{ name: 'http', port: 8080, targetPort: 8080 }],
      },
    },
  ];
}

/** Every component's workload objects. */
export function componentWorkloads(): Readonly<Record<Component, readonly Manifest[]>> {
  return {
    operator: [operatorWorkload()],
    controller: [controllerWorkload()],
    server: [serverWorkload()],
    daemon: [daemonWorkload()],
    dashboard: dashboardWorkloads(),
  };
}
