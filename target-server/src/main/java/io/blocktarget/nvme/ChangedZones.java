package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.ChangedZoneList;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.IdentifyController;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Changed Zone List of one controller, per namespace (ZNS §5.3.1), and its Zone Descriptor Changed notice (AEI
 * EFh, log page BFh; enabled by Async Event Configuration bit 27). A zone is listed when the controller changed its
 * descriptor on its own — it went Read Only or Offline (a fault rule, the control plane), or was finished by the
 * controller — never for the host's own Zone Management Send. Like the Changed Namespace List, one notice covers a
 * burst: it is re-armed when the host reads the page without RAE, which also clears that namespace's list.
 */
final class ChangedZones {
    /** AEI EFh: Zone Descriptor Changed (ZNS Figure "Asynchronous Event Information – Notice"). */
    static final int AEI_ZONE_DESCRIPTOR_CHANGED = 0xEF;

    private final Controller controller;
    private final Map<Long, Set<Long>> changed = new HashMap<>();
    private boolean reported;

    ChangedZones(Controller controller) {
        this.controller = controller;
    }

    /** The zone starting at {@code zslba} of namespace {@code nsid} changed: list it, notify when enabled and armed. */
    void zoneChanged(long nsid, long zslba) {
        boolean notify;
        synchronized (this) {
            Set<Long> zones = changed.computeIfAbsent(nsid, n -> new LinkedHashSet<>());
            // past 511 the page says FFFFh anyway; keep one more than fits so it does, and no more
            if (zones.size() <= ChangedZoneList.MAX_IDENTIFIERS) {
                zones.add(zslba);
            }
            notify = !reported && (controller.events().configuration()
                    & IdentifyController.OAES_ZONE_DESCRIPTOR_CHANGED) != 0;
            if (notify) {
                reported = true;
            }
        }
        if (notify) {
            controller.events().raise(AsyncEvents.dw0(AsyncEvents.AET_NOTICE, AEI_ZONE_DESCRIPTOR_CHANGED,
                    GetLogPageCommand.LID_CHANGED_ZONE_LIST));
        }
    }

    /** The list of {@code nsid}; without RAE it is cleared and the notice re-armed. */
    synchronized List<Long> read(long nsid, boolean rae) {
        Set<Long> zones = changed.get(nsid);
        List<Long> list = zones == null ? List.of() : new ArrayList<>(zones);
        if (!rae) {
            changed.remove(nsid);
            reported = false;
        }
        return list;
    }
}
