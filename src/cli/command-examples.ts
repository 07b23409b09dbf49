/**
 * The Examples section of every command's `--help`, as kubectl prints its own: a `# what` line,
 * then the command. Kept beside the registration so every command gets one; a test walks the tree
 * and fails on a command without examples, and on examples for a command that no longer exists.
 */
import type { Command } from 'commander';

export const CommandExamples: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  mco: [
    [
      'Start a cluster in a box in this folder (API server, operator, controller, MCS, nodes)',
      'mco start',
    ],
    ['Show the nodes, their pool, state and configs', 'mco get nodes'],
  ],
  'mco render': [
    [
      'Render the worker pool from a folder of MachineConfigs',
      'mco render --pool worker examples/',
    ],
    [
      'What a running node on current.yaml would do for the result (actions, drain, reboot)',
      'mco render --pool worker --current current.yaml --explain -o json examples/',
    ],
    [
      "The cluster's rendered name and plan for a change, as mco rollout preview gives them",
      'mco render --pool worker --from-cluster --explain my-change.yaml',
    ],
    [
      'The same from a snapshot of the cluster, without credentials',
      'mco render --pool worker --cluster-inputs cluster-inputs.yaml --explain my-change.yaml',
    ],
  ],
  'mco apiserver': [
    ['Serve the API on port 6443 with its state in ./state', 'mco apiserver --data-dir state'],
    [
      'Keep the state in etcd',
      'mco apiserver --data-dir state --storage etcd --etcd-endpoints http://127.0.0.1:2379',
    ],
  ],
  'mco apiserver node-kubeconfig': [
    [
      'Mint the kubeconfig node worker-0 joins with',
      'mco apiserver --data-dir state node-kubeconfig --node worker-0',
    ],
  ],
  'mco apiserver init-pki': [
    [
      'Create the CA, serving certificate and tokens before the first start',
      'mco apiserver --data-dir state init-pki',
    ],
  ],
  'mco manifests': [
    ['Write deploy/ from the code', 'mco manifests --dir deploy'],
    ['Fail if deploy/ differs from what the code writes', 'mco manifests --dir deploy --check'],
  ],
  'mco operator': [
    [
      'Run the operator against the cluster in a box',
      'mco operator --kubeconfig .mco/operator.kubeconfig --mcs-url https://127.0.0.1:22623 --mcs-ca-file .mco/ca.crt',
    ],
  ],
  'mco controller': [
    [
      'Run the controllers against a cluster',
      'mco controller --kubeconfig .mco/controller.kubeconfig',
    ],
  ],
  'mco daemon': [
    [
      'Run the daemon for node worker-0 on its root',
      'mco daemon --node worker-0 --root .mco/nodes/worker-0/rootfs --kubeconfig node.kubeconfig',
    ],
    [
      'On a real host: read as the pod ServiceAccount, write the Node as the kubelet',
      'mco daemon --node $(NODE_NAME) --root /rootfs --node-kubeconfig /var/lib/kubelet/kubeconfig',
    ],
    [
      'Apply a rendered config once, without a cluster',
      'mco daemon --node n1 --root /tmp/root --once-from rendered-worker.json',
    ],
  ],
  'mco server': [
    [
      'Serve Ignition configs from the cluster',
      'mco server --cert serving.crt --key serving.key --kubeconfig mcs.kubeconfig',
    ],
  ],
  'mco bootstrap': [
    [
      'Render the pools of an installer manifests folder',
      'mco bootstrap --manifest-dir manifests --dest-dir bootstrap',
    ],
  ],
  'mco pointer-config': [
    [
      'The user data that makes a new worker fetch its config',
      'mco pointer-config --pool worker --url https://127.0.0.1:22623 --ca ca.crt',
    ],
  ],
  'mco node': [
    ['Show a simulated node’s booted deployment', 'mco node status --dir .mco/nodes/worker-0'],
  ],
  'mco node build-boot-image': [
    [
      'Commit an OS tree as the boot image',
      'mco node build-boot-image --rootfs images/rootfs/testos-1 --repo boot.repo --ref testos/1 --os-version 1',
    ],
  ],
  'mco node create': [
    [
      'Create a simulated node from the boot image',
      'mco node create --dir nodes/worker-0 --name worker-0 --boot-repo boot.repo --ref testos/1',
    ],
    [
      'Join `mco apiserver --data-dir state` with the pool’s pointer config; the daemon reads as machine-config-daemon',
      'mco node create --dir nodes/worker-0 --name worker-0 --boot-repo boot.repo --ref testos/1 --pointer-config worker.ign --kubeconfig state/admin.kubeconfig --daemon-kubeconfig state/daemon.kubeconfig',
    ],
  ],
  'mco node run': [['Boot and supervise a simulated node', 'mco node run --dir nodes/worker-0']],
  'mco node status': [
    ['Show the booted and staged deployments', 'mco node status --dir nodes/worker-0'],
  ],
  'mco node kargs': [
    ['Show the kernel arguments of the booted deployment', 'mco node kargs --dir nodes/worker-0'],
  ],
  'mco node stage': [
    [
      'Stage an OS image for the next boot',
      'mco node stage --dir nodes/worker-0 --image 127.0.0.1:5000/os@sha256:…',
    ],
  ],
  'mco node reboot': [['Reboot a simulated node', 'mco node reboot --dir nodes/worker-0']],
  'mco node delete': [
    ['Delete a simulated node and its root', 'mco node delete --dir nodes/worker-0'],
  ],
  'mco ha': [
    ['Run an HA control plane (3 etcd members, 3 API servers)', 'mco ha up --data-dir ha'],
  ],
  'mco ha up': [['Start the HA control plane in ./ha', 'mco ha up --data-dir ha']],
  'mco ha status': [['Show the members and the leaders', 'mco ha status --data-dir ha']],
  'mco ha down': [['Stop every process of the HA control plane', 'mco ha down --data-dir ha']],
  'mco dashboard': [
    [
      'Serve the dashboard for the cluster in a box',
      'mco dashboard --kubeconfig .mco/admin.kubeconfig',
    ],
  ],
  'mco rollout': [['Follow the worker pool’s rollout', 'mco rollout status mcp/worker']],
  'mco rollout status': [
    [
      'Follow the worker pool until it is Updated (exit 0) or Degraded (exit 1)',
      'mco rollout status mcp/worker',
    ],
    ['Give up after five minutes', 'mco rollout status mcp/worker --timeout 5m'],
    ['Print the status once', 'mco rollout status mcp/worker --watch=false'],
  ],
  'mco rollout preview': [
    [
      'What applying a MachineConfig would do to each worker node (nothing is written)',
      'mco rollout preview mcp/worker -f 50-worker-chrony.yaml',
    ],
    [
      'Fail a CI job when any node would reboot',
      'mco rollout preview mcp/worker -f changes/ --fail-on reboot',
    ],
    [
      'The same against a dump of the cluster (kubectl get -o yaml files, or a must-gather)',
      'mco rollout preview mcp/worker -f 50-worker-chrony.yaml --from-dir must-gather/',
    ],
  ],
  'mco rollout history': [
    ['The rendered configs the worker pool kept, oldest first', 'mco rollout history mcp/worker'],
  ],
  'mco rollout undo': [
    ['Send the worker pool back to its previous rendered config', 'mco rollout undo mcp/worker'],
    ['Go back to revision 2 of the history', 'mco rollout undo mcp/worker --to-revision 2'],
  ],
  'mco rollout resume': [
    [
      'Let the rest of the worker pool update once its canary looks good',
      'mco rollout resume mcp/worker',
    ],
  ],
  'mco rollout approve': [
    [
      'Let a config the worker pool’s policy holds for an approval roll out',
      'mco rollout approve mcp/worker',
    ],
  ],
  'mco node history': [
    ['Why worker-0 updated, and whether it drained and rebooted', 'mco node history node/worker-0'],
    ['As JSON, as the audit stores it', 'mco node history node/worker-0 -o json'],
  ],
  'mco doctor': [
    ['Why the worker pool’s rollout is stuck, node by node, with the fix', 'mco doctor mcp/worker'],
    ['What keeps one node from its config', 'mco doctor node/worker-0'],
    ['Every pool, as JSON (exit 1 when something is stuck)', 'mco doctor -o json'],
  ],
  'mco get': [
    ['Nodes with pool, state and current/desired config', 'mco get nodes'],
    ['Add the MachineConfigNode phase and the reason of a failure', 'mco get nodes -o wide'],
    ['Pools: the config each rolls out and how far it got', 'mco get pools'],
    ['One node as kubectl prints it', 'mco get node/worker-0 -o yaml'],
    [
      'The workers’ names',
      "mco get nodes -l node-role.kubernetes.io/worker -o jsonpath='{.items[*].metadata.name}'",
    ],
    ['Against another context of $KUBECONFIG', 'mco get pools --context admin@prod'],
  ],
  'mco logs': [
    ['A simulated node’s daemon log', 'mco logs node/worker-0'],
    ['Follow it across restarts and reboots', 'mco logs node/worker-0 -f'],
  ],
  'mco start': [
    ['A cluster in a box with the default masters and workers, in ./.mco', 'mco start'],
    ['With three workers', 'mco start --workers 3'],
  ],
  'mco os-image': [
    [
      'Build the next OS version into an image',
      'mco os-image build --rootfs images/rootfs/testos-2 --version 2 --output docker://127.0.0.1:5000/os:2',
    ],
  ],
  'mco os-image build': [
    [
      'Build an OS tree into an image in a registry',
      'mco os-image build --rootfs images/rootfs/testos-2 --version 2 --output docker://127.0.0.1:5000/os:2',
    ],
  ],
  'mco extensions-image': [
    [
      'Pack the test extensions into an extensions image',
      'mco extensions-image build --tree images/extensions --version 1 --output docker://127.0.0.1:5000/extensions:1',
    ],
  ],
  'mco extensions-image build': [
    [
      'One OSTree commit per extension folder, pushed to a registry',
      'mco extensions-image build --tree images/extensions --version 1 --output docker://127.0.0.1:5000/extensions:1',
    ],
  ],
  'mco os-image inspect': [
    ['Show an OS image’s version and commit', 'mco os-image inspect 127.0.0.1:5000/os:2'],
  ],
  'mco os-image pull': [
    [
      'Pull an OS image into an OSTree repo',
      'mco os-image pull 127.0.0.1:5000/os:2 --dest os.repo',
    ],
  ],
  'mco release': [
    ['Show what a release image lists', 'mco release info 127.0.0.1:5000/release@sha256:…'],
  ],
  'mco release build': [
    [
      'List an OS image in a release image',
      'mco release build --version 4.16.1 --os-image 127.0.0.1:5000/os@sha256:… --output 127.0.0.1:5000/release:4.16.1',
    ],
  ],
  'mco release info': [
    [
      'Show a release image’s version and images',
      'mco release info 127.0.0.1:5000/release@sha256:…',
    ],
  ],
  'mco upgrade': [
    [
      'Upgrade the cluster to a release image',
      'mco upgrade --to-image 127.0.0.1:5000/release@sha256:…',
    ],
  ],
  'mco firstboot-complete-machineconfig': [
    [
      'Finish a node’s first boot (run by its systemd unit)',
      'mco firstboot-complete-machineconfig --root /',
    ],
  ],
  'mco version': [
    ['Client, server and operator versions', 'mco version'],
    ['The client only, as JSON', 'mco version --client -o json'],
  ],
  'mco completion': [
    ['Complete mco in bash for this shell', 'source <(mco completion bash)'],
    ['In zsh', 'source <(mco completion zsh)'],
    ['In fish', 'mco completion fish | source'],
  ],
};

function examplesText(examples: readonly (readonly [string, string])[]): string {
  return `\nExamples:\n${examples.map(([what, command]) => `  # ${what}\n  ${command}\n`).join('\n')}`;
}

/** Adds each command's examples to its help; returns the paths of commands that have none. */
export function addExamples(root: Command): string[] {
  const missing: string[] = [];
  const visit = (c: Command, path: string): void => {
    const examples = CommandExamples[path];
    if (examples === undefined) missing.push(path);
    else c.addHelpText('after', examplesText(examples));
    for (const s of c.commands) visit(s, `${path} ${s.name()}`);
  };
  visit(root, root.name());
  return missing;
}
