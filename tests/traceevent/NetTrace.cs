// nettrace: a .nettrace file as TraceEvent's EventPipeEventSource (PerfView's reader of
// EventPipe data) sees it.
//
// Prints, in this order:
//   events N                     every event dispatched
//   lost N                       events the reader says were dropped
//   gc gen0 N gen1 N gen2 N      GCStart events by generation (Depth)
//   exceptions N                 ExceptionThrown_V1 events
//   exception TYPE N             ... by exception type
//   contention N                 ContentionStart events
//   jit N                        MethodJittingStarted events
//   methodload N                 MethodLoadVerbose events
//   rundown N                    MethodDCStopVerbose events (the rundown's method names)
//   alloctick N                  GCAllocationTick events
//   event PROVIDER/NAME N        every kind of event, sorted
using System;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace PcTraceEvent
{
	public static class NetTrace
	{
		public static int Run(string[] args)
		{
			if (args.Length != 1)
			{
				Console.Error.WriteLine("usage: pc-traceevent nettrace FILE.nettrace");
				return 2;
			}
			long events = 0, exceptions = 0, contention = 0, jit = 0, load = 0, rundown = 0, ticks = 0;
			var gens = new long[3];
			var byType = new Dictionary<string, long>();
			var byEvent = new Dictionary<string, long>();
			using (var source = new EventPipeEventSource(args[0]))
			{
				source.Clr.GCStart += e => { if (e.Depth >= 0 && e.Depth < 3) gens[e.Depth]++; };
				source.Clr.ExceptionStart += e =>
				{
					exceptions++;
					byType.TryGetValue(e.ExceptionType, out var n);
					byType[e.ExceptionType] = n + 1;
				};
				source.Clr.ContentionStart += e => contention++;
				source.Clr.MethodJittingStarted += e => jit++;
				source.Clr.MethodLoadVerbose += e => load++;
				source.Clr.GCAllocationTick += e => ticks++;
				source.Dynamic.All += e => { }; // EventSources, named by their metadata
				var rd = new ClrRundownTraceEventParser(source);
				rd.MethodDCStopVerbose += e => rundown++;
				// After the parsers: events are named by them.
				source.AllEvents += e =>
				{
					events++;
					string key = e.ProviderName + "/" + e.EventName;
					byEvent.TryGetValue(key, out var n);
					byEvent[key] = n + 1;
				};
				source.Process();
				Console.WriteLine($"events {events}");
				Console.WriteLine($"lost {source.EventsLost}");
			}
			Console.WriteLine($"gc gen0 {gens[0]} gen1 {gens[1]} gen2 {gens[2]}");
			Console.WriteLine($"exceptions {exceptions}");
			foreach (var t in byType.OrderBy(t => t.Key, StringComparer.Ordinal))
				Console.WriteLine($"exception {t.Key} {t.Value}");
			Console.WriteLine($"contention {contention}");
			Console.WriteLine($"jit {jit}");
			Console.WriteLine($"methodload {load}");
			Console.WriteLine($"rundown {rundown}");
			Console.WriteLine($"alloctick {ticks}");
			foreach (var e in byEvent.OrderBy(e => e.Key, StringComparer.Ordinal))
				Console.WriteLine($"event {e.Key} {e.Value}");
			return 0;
		}
	}
}
