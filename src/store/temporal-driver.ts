// Node: a Temporal External Storage driver over the content store. A payload over the size threshold is stored as its
// protobuf bytes under their content key, and history carries only `{ driverName, claimData: { key } }`.
import proto from '@temporalio/proto';
import { StorageDriverClaim } from '@temporalio/common';
import type { Payload, StorageDriver } from '@temporalio/common';
import { isContentKey } from '../protocol/content-key.js';
import type { ContentStore } from './content-store.js';

const PayloadProto = proto.temporal.api.common.v1.Payload;

/** The driver name written into every reference: a worker or client resolves a reference only with this driver. */
export const STORAGE_DRIVER_NAME = 'durable-agent-store';

/** The driver implementation, as workers report it in their heartbeat. */
export const STORAGE_DRIVER_TYPE = 'durable-agent.content-store';

/** A payload's protobuf bytes: what the driver stores, and what the codec endpoint decodes again. */
export function payloadToBytes(payload: Payload): Uint8Array {
  return PayloadProto.encode(payload).finish();
}

/** The payload stored as protobuf bytes. */
export function payloadFromBytes(bytes: Uint8Array): Payload {
  return PayloadProto.toObject(PayloadProto.decode(bytes), { defaults: false }) as Payload;
}

/** The content key a claim of this driver names; throws for a claim some other writer made. */
export function claimKey(claim: StorageDriverClaim): `sha256:${string}` {
  const key = claim.claimData.key;
  if (!isContentKey(key))
    throw new TypeError(`${STORAGE_DRIVER_NAME} claim has no content key: ${JSON.stringify(claim.claimData)}`);
  return key;
}

/** External Storage over `store`: content-addressed, so a payload stored twice (a retried task) is written once. */
export function contentStoreDriver(store: ContentStore): StorageDriver {
  return {
    name: STORAGE_DRIVER_NAME,
    type: STORAGE_DRIVER_TYPE,
    async store(_context, payloads) {
      return await Promise.all(
        payloads.map(async (payload) => new StorageDriverClaim({ key: await store.put(payloadToBytes(payload)) })),
      );
    },
    async retrieve(_context, claims) {
      // A missing key throws the store's MissingContentError: the payload is gone and no retry brings it back.
      return await Promise.all(claims.map(async (claim) => payloadFromBytes(await store.get(claimKey(claim)))));
    },
  };
}
