/**
 * Spec 3.0 (config/v3_0/types): 3.1 without proxy, HTTP headers or filesystem mountOptions;
 * config references, CA references and file contents are separate structs (a config source is a
 * pointer without omitempty).
 */
import { amendLayout, withoutFields, type LayoutSource } from './go-layout.js';
import { LayoutV3_1 } from './v3-1.js';

export const LayoutV3_0: LayoutSource = amendLayout(LayoutV3_1, {
  removed: ['Proxy', 'Resource', 'HTTPHeader'],
  structs: {
    Ignition: ['config IgnitionConfig', 'security Security', 'timeouts Timeouts', 'version string'],
    IgnitionConfig: ['merge []ConfigReference', 'replace ConfigReference'],
    ConfigReference: ['source! *string', 'verification Verification'],
    TLS: ['certificateAuthorities []CaReference'],
    CaReference: ['source! string', 'verification Verification'],
    File: [
      'group NodeGroup',
      'overwrite *bool',
      'path! string',
      'user NodeUser',
      'append []FileContents',
      'contents FileContents',
      'mode *int',
    ],
    FileContents: ['compression *string', 'source *string', 'verification Verification'],
    Filesystem: withoutFields(LayoutV3_1.structs['Filesystem'], 'mountOptions'),
  },
});
