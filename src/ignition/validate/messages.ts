/**
 * Ignition's validation texts (config/shared/errors/errors.go and vcontext), verbatim: reports must
 * match what `ignition-validate` prints, byte for byte.
 */
import { goQuoteBytes } from '../../lib/go/quote.js';

export const Msg = {
  duplicate: 'duplicate entry defined',
  invalidVersion: "invalid config version (couldn't parse)",
  unknownVersion: 'unsupported config version',
  compressionInvalid: 'invalid compression method',
  fileUsedSymlink: 'file path includes link in config',
  directoryUsedSymlink: 'directory path includes link in config',
  linkUsedSymlink: 'link path includes link in config',
  linkTargetRequired: 'link target is required',
  hardLinkToDirectory: 'hard link target is a directory',
  hardLinkSpecifiesOwner: 'user/group ignored for hard link',
  diskDeviceRequired: 'disk device is required',
  partitionNumbersCollide: 'partition numbers collide',
  partitionsOverlap: 'partitions overlap',
  overwriteAndNilSource: 'overwrite must be false if source is unspecified',
  verificationAndNilSource: 'source must be specified if verification is specified',
  filesystemInvalidFormat: 'invalid filesystem format',
  labelNeedsFormat: 'filesystem must specify format if label is specified',
  formatNilWithOthers:
    'format cannot be empty when path, label, uuid, wipeFilesystem, options, or mountOptions is specified',
  ext4LabelTooLong: 'filesystem labels cannot be longer than 16 characters when using ext4',
  btrfsLabelTooLong: 'filesystem labels cannot be longer than 256 characters when using btrfs',
  xfsLabelTooLong: 'filesystem labels cannot be longer than 12 characters when using xfs',
  swapLabelTooLong: 'filesystem labels cannot be longer than 15 characters when using swap',
  vfatLabelTooLong: 'filesystem labels cannot be longer than 11 characters when using vfat',
  luksLabelTooLong: 'luks device labels cannot be longer than 47 characters',
  luksNameContainsSlash: 'device names cannot contain slashes',
  invalidLuksKeyFile: 'invalid key-file source',
  clevisPinRequired: 'missing required custom clevis pin',
  unknownClevisPin: 'unsupported clevis pin',
  clevisConfigRequired: 'missing required custom clevis config',
  clevisCustomWithOthers: 'cannot use custom clevis config with tpm2, tang, or threshold',
  tangThumbprintRequired: 'thumbprint is required',
  invalidTangAdvertisement: 'advertisement is not valid JSON',
  fileIllegalMode: 'illegal file mode',
  modeSpecialBits: 'setuid/setgid/sticky bits are not supported in spec versions older than 3.4.0',
  bothIdAndNameSet: 'cannot set both id and name',
  partitionLabelTooLong: 'partition labels may not exceed 36 characters',
  doesntMatchGuidRegex: 'doesn\'t match the form "01234567-89AB-CDEF-EDCB-A98765432101"',
  labelContainsColon: 'partition label will be truncated to text before the colon',
  noPath: 'path not specified',
  pathRelative: 'path not absolute',
  dirtyPath: 'path is not fully simplified',
  partitionsOverwritten: 'filesystem overwrites partitioned device',
  filesystemImplicitWipe: 'device matches disk with wipeTable enabled; filesystem will be wiped',
  raidLevelRequired: 'raid level is required',
  sparesUnsupportedForLevel: 'spares unsupported for linear and raid0 arrays',
  unrecognizedRaidLevel: 'unrecognized raid level',
  raidDevicesRequired: 'raid devices required',
  shouldNotExistWithOthers: 'shouldExist specified false with other options also specified',
  zeroesWithShouldNotExist:
    'shouldExist is false for a partition and other partition(s) has start or size 0',
  needLabelOrNumber: 'a partition number >= 1 or a label must be specified',
  duplicateLabels: 'cannot use the same partition label twice',
  invalidProxy: 'proxies must be http(s)',
  insecureProxy: 'insecure plaintext HTTP proxy specified for HTTPS resources',
  pathConflictsSystemd: 'path conflicts with systemd unit or dropin',
  invalidSystemdExt: 'invalid systemd unit extension',
  invalidSystemdDropinExt: 'invalid systemd drop-in extension',
  sourceRequired: 'source is required',
  invalidScheme: 'invalid url scheme',
  invalidUrl: 'unable to parse url',
  invalidHttpHeader: 'unable to parse HTTP header',
  emptyHttpHeaderName: "HTTP header name can't be empty",
  unsupportedSchemeForHttpHeaders: 'cannot use HTTP headers with this source scheme',
  hashMalformed: 'malformed hash specifier',
  hashWrongSize: 'incorrect size for hash sum',
  hashUnrecognized: 'unrecognized hash function',
  invalidS3Arn: 'invalid S3 ARN format',
  invalidS3ObjectVersionId: 'invalid S3 object VersionId',
} as const;

const q = (s: string): string => goQuoteBytes(new TextEncoder().encode(s));

export function noInstallSection(unit: string): string {
  return `unit ${q(unit)} is enabled, but has no install section so enable does nothing`;
}

export function noInstallSectionForTemplate(template: string, instance: string): string {
  return `template unit ${q(template)} for ${q(instance)} doesn't have Install section`;
}

export function unusedKey(key: string): string {
  return `Unused key ${key}`;
}

export function contextMismatch(path: string): string {
  return `context tree does not match content tree at ${path}. Line and column reporting may be inconsistent. Unused keys may not be reported.`;
}
