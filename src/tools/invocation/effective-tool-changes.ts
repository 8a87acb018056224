import { Injectable } from '@nestjs/common';
import { ChangeEvents } from '../../database/change-events';
import { CATALOG_CHANGED } from '../catalog/catalog-state';

/**
 * When anyone's effective tool set may have changed: a committed catalog change (approval, quarantine,
 * revocation, tenant access, bundle or assignment, source refresh) on this replica or another, or a lost
 * change-event connection (changes may have been missed). Surfaces that push list changes listen here
 * instead of reaching into the catalog.
 */
@Injectable()
export class EffectiveToolChanges {
  constructor(private readonly events: ChangeEvents) {}

  onChange(handler: () => void): void {
    this.events.subscribe(CATALOG_CHANGED, handler);
    this.events.onReset(handler);
  }
}
