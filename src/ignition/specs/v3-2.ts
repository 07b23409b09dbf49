/**
 * Spec 3.2 (config/v3_2/types): 3.3 without kernelArguments; link target, RAID level and devices
 * are required non-pointers; LUKS Clevis and its custom pin are pointers, the custom config and
 * pin required strings.
 */
import { amendLayout, withoutFields, type LayoutSource } from './go-layout.js';
import { LayoutV3_3 } from './v3-3.js';

export const LayoutV3_2: LayoutSource = amendLayout(LayoutV3_3, {
  removed: ['KernelArguments', 'ClevisCustom'],
  structs: {
    Config: withoutFields(LayoutV3_3.structs['Config'], 'kernelArguments'),
    Link: [
      'group NodeGroup',
      'overwrite *bool',
      'path! string',
      'user NodeUser',
      'hard *bool',
      'target! string',
    ],
    Raid: [
      'devices! []Device',
      'level! string',
      'name! string',
      'options []RaidOption',
      'spares *int',
    ],
    Luks: [
      'clevis *Clevis',
      'device *string',
      'keyFile Resource',
      'label *string',
      'name! string',
      'options []LuksOption',
      'uuid *string',
      'wipeVolume *bool',
    ],
    Clevis: ['custom *Custom', 'tang []Tang', 'threshold *int', 'tpm2 *bool'],
    Custom: ['config! string', 'needsNetwork *bool', 'pin! string'],
  },
});
