/** Spec 3.4 (config/v3_4/types): 3.5 without LUKS `cex`. */
import { amendLayout, withoutFields, type LayoutSource } from './go-layout.js';
import { LayoutV3_5 } from './v3-5.js';

export const LayoutV3_4: LayoutSource = amendLayout(LayoutV3_5, {
  removed: ['Cex'],
  structs: { Luks: withoutFields(LayoutV3_5.structs['Luks'], 'cex') },
});
