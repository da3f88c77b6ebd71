/** The conversions of every built-in kind served in several versions. */
import { eventConversion } from '../events/event-conversion.js';
import { ConversionRegistry } from './conversion-registry.js';

export function newBuiltinConversions(): ConversionRegistry {
  return new ConversionRegistry([eventConversion]);
}
