// A .NET service that hangs, for the `stacks` tests.
//
//   pc-hang-app monitor [WAITERS]   Program.TakeAB holds lock A and wants B, Program.TakeBA
//                                   holds B and wants A (a deadlock); WAITERS more threads
//                                   (default 5) wait for A in Program.Waiter
//   pc-hang-app lock [WAITERS]      the same with System.Threading.Lock (.NET 9+)
//   pc-hang-app semaphore [WAITERS] Program.Holder holds a SemaphoreSlim(1) and sleeps on a
//                                   Monitor.Wait; WAITERS threads wait for the semaphore
//   pc-hang-app idle THREADS        THREADS threads sleep in Thread.Sleep (a big process)
//
// Each thread says which OS thread it is ("tid NAME TID") before it blocks, and the app
// prints "ready <pid>" once every thread is blocked where it should be, so a test waits for
// that line instead of sleeping.  It never exits by itself.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

public static class Program
{
	static readonly object A = new object();
	static readonly object B = new object();
#if NET9_0_OR_GREATER
	static readonly Lock LockA = new Lock();
	static readonly Lock LockB = new Lock();
#endif
	static readonly SemaphoreSlim Gate = new SemaphoreSlim(1);
	static readonly object Never = new object();
	static readonly Barrier Both = new Barrier(2);
	static readonly ManualResetEventSlim FirstHeld = new ManualResetEventSlim();
	static readonly List<int> Blockers = new List<int>();

	[DllImport("libc", EntryPoint = "gettid")]
	static extern int gettid();

	static void Say(string what)
	{
		lock (Console.Out)
			Console.Out.WriteLine(what);
	}

	// Says which OS thread this is; it is about to block, so the app waits for it to.
	static void Started(string name)
	{
		int tid = gettid();
		lock (Blockers)
			Blockers.Add(tid);
		Say($"tid {name} {tid}");
	}

	[MethodImpl(MethodImplOptions.NoInlining)]
	static void TakeAB()
	{
		Started("TakeAB");
		lock (A) {
			FirstHeld.Set();
			Both.SignalAndWait();
			lock (B)
				Say("never");
		}
	}

	[MethodImpl(MethodImplOptions.NoInlining)]
	static void TakeBA()
	{
		Started("TakeBA");
		lock (B) {
			Both.SignalAndWait();
			lock (A)
				Say("never");
		}
	}

	[MethodImpl(MethodImplOptions.NoInlining)]
	static void Waiter()
	{
		Started("Waiter");
		lock (A)
			Say("never");
	}

#if NET9_0_OR_GREATER
	[MethodImpl(MethodImplOptions.NoInlining)]
	static void LockAB()
	{
		Started("LockAB");
		using (LockA.EnterScope()) {
			FirstHeld.Set();
			Both.SignalAndWait();
			using (LockB.EnterScope())
				Say("never");
		}
	}

	[MethodImpl(MethodImplOptions.NoInlining)]
	static void LockBA()
	{
		Started("LockBA");
		using (LockB.EnterScope()) {
			Both.SignalAndWait();
			using (LockA.EnterScope())
				Say("never");
		}
	}

	[MethodImpl(MethodImplOptions.NoInlining)]
	static void LockWaiter()
	{
		Started("LockWaiter");
		using (LockA.EnterScope())
			Say("never");
	}
#endif

	[MethodImpl(MethodImplOptions.NoInlining)]
	static void Holder()
	{
		Gate.Wait();
		FirstHeld.Set();
		Started("Holder");
		lock (Never)
			Monitor.Wait(Never);
	}

	[MethodImpl(MethodImplOptions.NoInlining)]
	static void GateWaiter()
	{
		Started("GateWaiter");
		Gate.Wait();
	}

	[MethodImpl(MethodImplOptions.NoInlining)]
	static void Sleeper()
	{
		Started("Sleeper");
		Thread.Sleep(Timeout.Infinite);
	}

	static Thread Start(ThreadStart body, string name)
	{
		var t = new Thread(body) { Name = name, IsBackground = true };
		t.Start();
		return t;
	}

	// Waits until every thread that said it is about to block sleeps in the kernel ('S' in
	// /proc), twice in a row 50 ms apart, so none is still spinning on its way there.
	static void WaitBlocked(int expected)
	{
		for (;;) {
			lock (Blockers)
				if (Blockers.Count >= expected)
					break;
			Thread.Sleep(10);
		}
		int[] tids;
		lock (Blockers)
			tids = Blockers.ToArray();
		for (int calm = 0; calm < 2;) {
			Thread.Sleep(50);
			bool all = true;
			foreach (int tid in tids) {
				string stat = System.IO.File.ReadAllText($"/proc/self/task/{tid}/stat");
				int close = stat.LastIndexOf(')');
				all &= close > 0 && stat[close + 2] == 'S';
				// asleep in the wait itself (a futex), not in a lock's spin-and-sleep
				// before it ("0": the kernel does not say)
				string wchan = System.IO.File.ReadAllText($"/proc/self/task/{tid}/wchan");
				all &= wchan.Contains("futex") || wchan == "0";
			}
			calm = all ? calm + 1 : 0;
		}
	}

	public static int Main(string[] args)
	{
		string mode = args.Length > 0 ? args[0] : "monitor";
		int n = args.Length > 1 ? int.Parse(args[1]) : 5;
		int expected = n + 2;
		switch (mode) {
		case "monitor":
			Start(TakeAB, "TakeAB");
			Start(TakeBA, "TakeBA");
			// The waiters come once A is held, so they wait for it and not the other way.
			FirstHeld.Wait();
			for (int i = 0; i < n; i++)
				Start(Waiter, "Waiter" + i);
			break;
#if NET9_0_OR_GREATER
		case "lock":
			Start(LockAB, "LockAB");
			Start(LockBA, "LockBA");
			FirstHeld.Wait();
			for (int i = 0; i < n; i++)
				Start(LockWaiter, "LockWaiter" + i);
			break;
#endif
		case "semaphore":
			Start(Holder, "Holder");
			FirstHeld.Wait();
			for (int i = 0; i < n; i++)
				Start(GateWaiter, "GateWaiter" + i);
			expected = n + 1;
			break;
		case "idle":
			for (int i = 0; i < n; i++)
				Start(Sleeper, "Sleeper" + i);
			expected = n;
			break;
		default:
			Console.Error.WriteLine($"unknown mode {mode}");
			return 2;
		}
		WaitBlocked(expected);
		Say($"ready {Environment.ProcessId}");
		Thread.Sleep(Timeout.Infinite);
		return 0;
	}
}
