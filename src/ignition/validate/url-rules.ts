/**
 * Ignition's URL checks (validateURL, validateTangURL, validateProxyURL, the HTTP-header scheme
 * check): which schemes each spec accepts and what it says when a source is rejected.
 */
import { checkDataUrl, describeDataUrlError } from '../data-url.js';
import { goQueryValues, goUrlParse } from './go-url.js';
import { Msg } from './messages.js';

function s3VersionIdError(rawQuery: string): string | undefined {
  const v = goQueryValues(rawQuery).get('versionId');
  if (v === undefined) return undefined;
  return v.length === 0 || v[0] === '' ? Msg.invalidS3ObjectVersionId : undefined;
}

/** aws-sdk-go-v2's arn.Parse, reduced to its error text. */
function arnParseError(full: string): string | undefined {
  const sections = full.split(':');
  if (sections.length < 6) return 'arn: not enough sections';
  const [prefix, partition, service] = sections;
  const resource = sections.slice(5).join(':');
  if (prefix !== 'arn') return 'arn: invalid prefix';
  if (partition === '') return 'arn: missing partition';
  if (service === '') return 'arn: missing service';
  if (resource === '') return 'arn: missing resource';
  return undefined;
}

function arnError(opaque: string, rawQuery: string): string | undefined {
  const full = `arn:${opaque}`;
  if ((full.match(/:/g) ?? []).length < 5) return Msg.invalidS3Arn;
  const parseError = arnParseError(full);
  if (parseError !== undefined) return parseError;
  const sections = full.split(':');
  if (sections[2] !== 's3') return Msg.invalidS3Arn;
  const resource = sections.slice(5).join(':');
  const parts = full.split('/');
  if (resource.startsWith('accesspoint/') ? parts.length < 3 : parts.length < 2)
    return Msg.invalidS3Arn;
  return s3VersionIdError(rawQuery);
}

/** validateURL: the message for a rejected source, or undefined when Ignition accepts it. */
export function validateUrl(s: string, minor: number): string | undefined {
  const u = goUrlParse(s);
  if (u === undefined) return Msg.invalidUrl;
  switch (u.scheme) {
    case 'http':
    case 'https':
    case 'tftp':
      return undefined;
    case 'gs':
      return minor >= 2 ? undefined : Msg.invalidScheme;
    case 'oem':
      return minor >= 4 ? undefined : Msg.invalidScheme;
    case 's3':
      return s3VersionIdError(u.rawQuery);
    case 'arn':
      return minor >= 4 ? arnError(u.opaque, u.rawQuery) : Msg.invalidScheme;
    case 'data': {
      const e = checkDataUrl(s);
      return e === undefined ? undefined : describeDataUrlError(e);
    }
    default:
      return Msg.invalidScheme;
  }
}

/** validateURLNilOK: nil and "" are fine. */
export function validateUrlNilOk(s: string | null, minor: number): string | undefined {
  return s === null || s === '' ? undefined : validateUrl(s, minor);
}

export function validateTangUrl(s: string): string | undefined {
  const u = goUrlParse(s);
  if (u === undefined) return Msg.invalidUrl;
  return u.scheme === 'http' || u.scheme === 'https' ? undefined : Msg.invalidScheme;
}

/** validateProxyURL: an error, or a warning for plain HTTP where HTTPS was asked for. */
export function validateProxyUrl(
  s: string | null,
  httpOk: boolean,
): { readonly kind: 'error' | 'warning'; readonly message: string } | undefined {
  if (s === null) return undefined;
  const u = goUrlParse(s);
  if (u === undefined) return { kind: 'error', message: Msg.invalidUrl };
  if (u.scheme !== 'https' && u.scheme !== 'http')
    return { kind: 'error', message: Msg.invalidProxy };
  if (u.scheme === 'http' && !httpOk) return { kind: 'warning', message: Msg.insecureProxy };
  return undefined;
}

/** validateSchemeForHTTPHeaders: headers need an http(s) source. */
export function validateHeaderScheme(
  headerCount: number,
  source: string | null,
): string | undefined {
  if (headerCount < 1) return undefined;
  if (source === null || source === '') return Msg.invalidUrl;
  const u = goUrlParse(source);
  if (u === undefined) return Msg.invalidUrl;
  return u.scheme === 'http' || u.scheme === 'https'
    ? undefined
    : Msg.unsupportedSchemeForHttpHeaders;
}
