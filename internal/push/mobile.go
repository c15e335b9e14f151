package push

import (
	"context"
	"log/slog"
	"sync"

	"ermine/internal/chat"
)

// Router sends each notification with the sender of its subscription's
// kind: the mobile platforms by their endpoint names ("fcm", "apn"), Web
// Push (UnifiedPush distributors included) for URLs. A platform without
// credentials drops its notifications, saying so once in the log.
type Router struct {
	Web, FCM, APNs Sender
	Log            *slog.Logger

	once sync.Map // endpoint -> *sync.Once, for the missing-credentials line
}

// Send implements Sender.
func (r *Router) Send(ctx context.Context, sub Subscription, payload []byte) error {
	var s Sender
	switch sub.Endpoint {
	case chat.PushEndpointFCM:
		s = r.FCM
	case chat.PushEndpointAPN:
		s = r.APNs
	default:
		s = r.Web
	}
	if s == nil {
		r.Unconfigured(sub.Endpoint)
		return nil
	}
	return s.Send(ctx, sub, payload)
}

// Unconfigured logs, once per endpoint kind, that subscriptions of that
// kind are kept but not delivered.
func (r *Router) Unconfigured(endpoint string) {
	o, _ := r.once.LoadOrStore(endpoint, new(sync.Once))
	o.(*sync.Once).Do(func() {
		if r.Log != nil {
			what := map[string]string{chat.PushEndpointFCM: "[push.fcm]", chat.PushEndpointAPN: "[push.apn]"}[endpoint]
			if what == "" {
				what = "[push] vapid keys"
			}
			r.Log.Warn("push subscriptions of this kind are stored but not delivered: "+what+" is not configured",
				"endpoint", endpoint)
		}
	})
}
