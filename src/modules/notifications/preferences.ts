import {
  type ChannelPreference,
  DEFAULT_CHANNEL,
  DEFAULT_SWITCHES,
  PREFERENCE_SWITCHES,
  type PreferenceSwitches,
} from './notification-types';
import type { NotificationPreferencesRow } from './notifications.schema';

export interface EffectivePreferences {
  channel: ChannelPreference;
  switches: PreferenceSwitches;
}

/** A member's stored choices over the defaults (email, every switch on); unknown stored keys are ignored. */
export function effectivePreferences(row: NotificationPreferencesRow | undefined): EffectivePreferences {
  const switches = { ...DEFAULT_SWITCHES };
  for (const key of PREFERENCE_SWITCHES) {
    const stored = row?.switches[key];
    if (typeof stored === 'boolean') switches[key] = stored;
  }
  return { channel: row?.channel ?? DEFAULT_CHANNEL, switches };
}
