/** Spec 3.1 (config/v3_1/types): 3.2 without LUKS, partition resize or user/group shouldExist. */
import { amendLayout, withoutFields, type LayoutSource } from './go-layout.js';
import { LayoutV3_2 } from './v3-2.js';

export const LayoutV3_1: LayoutSource = amendLayout(LayoutV3_2, {
  removed: ['Luks', 'Clevis', 'Custom', 'Tang'],
  structs: {
    Storage: withoutFields(LayoutV3_2.structs['Storage'], 'luks'),
    Partition: withoutFields(LayoutV3_2.structs['Partition'], 'resize'),
    PasswdGroup: withoutFields(LayoutV3_2.structs['PasswdGroup'], 'shouldExist'),
    PasswdUser: withoutFields(LayoutV3_2.structs['PasswdUser'], 'shouldExist'),
  },
});
