/**
 * Spec 3.3 (config/v3_3/types): 3.4 without LUKS discard and openOptions or Tang advertisement;
 * `ignition.version` is omitempty.
 */
import { amendLayout, withoutFields, type LayoutSource } from './go-layout.js';
import { LayoutV3_4 } from './v3-4.js';

export const LayoutV3_3: LayoutSource = amendLayout(LayoutV3_4, {
  structs: {
    Ignition: [...withoutFields(LayoutV3_4.structs['Ignition'], 'version'), 'version string'],
    Luks: withoutFields(LayoutV3_4.structs['Luks'], 'discard', 'openOptions'),
    Tang: ['thumbprint *string', 'url string'],
  },
});
