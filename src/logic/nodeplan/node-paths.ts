/**
 * Well-known paths on a managed node that the daemon's decisions depend on
 * (docs/reference/catalog.md §A.2). Kept in one place so the decision functions and the daemon agree on them.
 */

/** Creating this file forces a full re-apply with a reboot (docs/reference/daemon.md §7.9). */
export const ForceFilePath = '/run/machine-config-daemon-force';

const SystemdUnitDir = '/etc/systemd/system';
export const DevNull = '/dev/null';

export const KubeletCaPath = '/etc/kubernetes/kubelet-ca.crt';
export const CloudCaBundlePath =
  '/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem';
export const UserCaBundlePath =
  '/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt';
export const KubeletAuthFilePath = '/var/lib/kubelet/config.json';
export const InternalRegistryAuthFilePath = '/etc/mco/internal-registry-pull-secret.json';
export const ImageRegistryCaDir = '/etc/docker/certs.d';

export const ContainerRegistryConfPath = '/etc/containers/registries.conf';
export const ContainerRegistryPolicyPath = '/etc/containers/policy.json';
export const GpgNoRebootPath = '/etc/machine-config-daemon/no-reboot/containers-gpg.pub';
export const SigstoreRegistriesConfigDir = '/etc/containers/registries.d';
export const CrioPoliciesDir = '/etc/crio/policies';
export const OpenShiftNmStateConfigDir = '/etc/nmstate/openshift';

export const CoreUserName = 'core';
export const CoreUserSshDir = '/home/core/.ssh';
/** RHCOS 9+, FCOS and SCOS read keys from this fragment. */
export const AuthorizedKeysFragmentPath = '/home/core/.ssh/authorized_keys.d/ignition';

const OrigParentDir = '/etc/machine-config-daemon/orig';
const NoOrigParentDir = '/etc/machine-config-daemon/noorig';

/** `/etc/machine-config-daemon/orig/<path>.mcdorig`: the backup of a file the OS shipped. */
export function origFilePath(path: string): string {
  return `${OrigParentDir}${path}.mcdorig`;
}

/** `/etc/machine-config-daemon/noorig/<path>.mcdnoorig`: "nothing was here before us". */
export function noOrigStampPath(path: string): string {
  return `${NoOrigParentDir}${path}.mcdnoorig`;
}

/** `/usr<path>`: where an OSTree system keeps the shipped default of an `/etc` file. */
export function withUsrPath(path: string): string {
  return `/usr${path}`;
}

export function unitPath(unit: string): string {
  return `${SystemdUnitDir}/${unit}`;
}

export function dropinPath(unit: string, dropin: string): string {
  return `${SystemdUnitDir}/${unit}.d/${dropin}`;
}
